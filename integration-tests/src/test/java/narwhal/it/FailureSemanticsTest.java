package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The spec's failure rules over real HTTP, against simulated engines told (by a directive in the
 * prompt) to misbehave in one way each. Timeouts are short so real time stays small.
 */
class FailureSemanticsTest {

  private static RoutedFleet fleet;

  @BeforeAll
  static void start() {
    fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), c -> c
        .withEngine(c.engine().withFirstTokenTimeoutS(0.5).withDecodeReadTimeoutS(0.3))
        .withServing(c.serving().withPrefillTimeoutS(0.5)), null);
  }

  @AfterAll
  static void stop() {
    fleet.close();
  }

  @BeforeEach
  void clear() {
    fleet.clearReceived();
  }

  @AfterEach
  void released() {
    fleet.assertReservationsReturnToZero();
  }

  private static String body(String directive, boolean stream) {
    return "{\"model\":\"narwhal-sim\",\"prompt\":\"fault [[sim:" + directive + "]]\",\"max_tokens\":6,"
        + "\"stream\":" + stream + "}";
  }

  private static JsonNode errorOf(HttpResponse<String> r) {
    return json(r.body()).path("error");
  }

  private static int decodeRequests() {
    return fleet.engine("d0").received().size() + fleet.engine("d1").received().size();
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void doneBeforeAnyToken_is502WithTheSpecMessage(boolean stream) {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("done-first,phase=decode", stream));
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(errorOf(r).path("message").asText()).isEqualTo("stream ended with [DONE] before any token arrived");
    assertThat(errorOf(r).path("type").asText()).isEqualTo("decode");
  }

  @Test
  void prefillEngineError_isPlain502NamingThePrefillPhase_andNoDecodeIsSent() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("status=500,phase=prefill", true));
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(errorOf(r).path("type").asText()).isEqualTo("prefill");
    assertThat(errorOf(r).path("message").asText()).contains("answered HTTP 500");
    assertThat(decodeRequests()).isZero();
  }

  @Test
  void decodeEngineErrorBeforeOutput_isPlain502() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("status=500,phase=decode", true));
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(errorOf(r).path("type").asText()).isEqualTo("decode");
  }

  @Test
  void engineRejection_isRelayedWithItsStatus() {
    HttpResponse<String> r = fleet.client.post("/v1/completions",
        body("status=400,message=prompt too long,phase=prefill", false));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(errorOf(r).path("message").asText()).contains("prompt too long");
  }

  @Test
  void silentFirstToken_is504() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("silence-first=forever,phase=decode", true));
    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(errorOf(r).path("message").asText()).startsWith("no first token within 500 ms");
  }

  @Test
  void responseHeaderDelay_spendsTheFirstTokenBudget() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("delay-headers=900,phase=decode", true));
    assertThat(r.statusCode()).isEqualTo(504);
  }

  @Test
  void prefillTimeout_is504NamingPrefill() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("delay-headers=900,phase=prefill", true));
    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(errorOf(r).path("type").asText()).isEqualTo("prefill");
    assertThat(decodeRequests()).isZero();
  }

  @Test
  void silenceAfterTokens_streaming_endsWithOneTerminalErrorEvent() {
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body("silence-after=2,phase=decode", true));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.endsWithDone()).isFalse();
    List<String> data = r.data();
    JsonNode last = json(data.get(data.size() - 1));
    assertThat(last.path("error").path("code").asInt()).isEqualTo(504);
    assertThat(last.path("error").path("code").isInt()).isTrue();
    assertThat(last.path("error").path("message").asText()).startsWith("engine went silent between tokens");
    assertThat(data.stream().filter(d -> d.contains("\"error\"")).count()).isEqualTo(1);
    assertThat(r.text()).isEqualTo(String.join("", SimEngine.expectedTokens(0,
        "fault [[sim:silence-after=2,phase=decode]]", 2)));
  }

  @Test
  void silenceAfterTokens_nonStreaming_isPlain504() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("silence-after=2,phase=decode", false));
    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(errorOf(r).path("message").asText()).startsWith("engine went silent between tokens");
  }

  @Test
  void metadataChunksDuringSilence_resetTheSilenceTimer() {
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions",
        body("silence-after=2,ms=700,metadata-every=100,phase=decode", true));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.endsWithDone()).isTrue();
  }

  @Test
  void closeBeforeDone_afterOutput_isATerminal502Event() {
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body("eof-after=3,phase=decode", true));
    assertThat(r.status()).isEqualTo(200);
    JsonNode last = json(r.data().get(r.data().size() - 1));
    assertThat(last.path("error").path("code").asInt()).isEqualTo(502);
    assertThat(last.path("error").path("message").asText()).contains("before [DONE]");
  }

  @Test
  void errorObjectInsideTheStream_propagatesItsOwnStatus() {
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions",
        body("error-after=2,code=503,message=engine overloaded,phase=decode", true));
    assertThat(r.status()).isEqualTo(200);
    JsonNode last = json(r.data().get(r.data().size() - 1));
    assertThat(last.path("error").path("code").asInt()).isEqualTo(503);
    assertThat(last.path("error").path("message").asText()).contains("engine overloaded");

    HttpResponse<String> plain = fleet.client.post("/v1/completions",
        body("error-after=1,code=429,phase=decode", false));
    assertThat(plain.statusCode()).isEqualTo(429);
  }

  @ParameterizedTest
  @ValueSource(strings = {"kv-missing-engine-id", "kv-bad-block-ids", "kv-wrong-connector", "kv-none"})
  void unusableDescriptor_failsAsKvHandoff_andNoDecodeRequestIsSent(String fault) {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body(fault + ",phase=prefill", true));
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(errorOf(r).path("type").asText()).isEqualTo("prefill");
    assertThat(errorOf(r).path("message").asText()).contains("unusable KV handoff");
    assertThat(decodeRequests()).isZero();
  }

  @Test
  void decodeEngineClosingTheConnection_is502() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("refuse,phase=decode", true));
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(errorOf(r).path("type").asText()).isEqualTo("decode");
  }
}
