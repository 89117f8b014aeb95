package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import narwhal.sim.FaultPlan;
import narwhal.sim.PrefillResponse;
import narwhal.sim.ReceivedRequest;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The spec's failure rules over real HTTP, against simulated engines told (by a directive in the
 * prompt, or through a simulator's admin endpoint) to misbehave in one way each. Every test checks
 * the status, the message, the terminal event's shape, what the engines received, and (after each)
 * that every reservation was released. Timeouts are short so real time stays small.
 */
class FailureSemanticsTest {

  private static final List<String> PREFILL = List.of("p0", "p1");
  private static final List<String> DECODE = List.of("d0", "d1");
  private static final int MAX_TOKENS = 6;
  private static final HttpClient ADMIN_HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  private static RoutedFleet fleet;

  @BeforeAll
  static void start() {
    fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), c -> c
        .withEngine(c.engine().withFirstTokenTimeoutS(0.5).withDecodeReadTimeoutS(0.3))
        .withServing(c.serving().withPrefillTimeoutS(0.5))
        // Every test here fails an engine on purpose; the breaker (BreakerTest's subject) must not
        // take engines out of placement between tests and turn a later test's fault into a 503.
        .withRecovery(c.recovery().withEjectAfter(1_000_000)), null);
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

  // ---------------------------------------------------------------- helpers

  private static String prompt(String directive) {
    return "fault [[sim:" + directive + "]]";
  }

  /** A completion body (built as JSON, so a directive may contain quotes). */
  private static String body(String directive, boolean stream) {
    ObjectNode body = RouterClient.JSON.createObjectNode();
    body.put("model", RoutedFleet.MODEL);
    body.put("prompt", prompt(directive));
    body.put("max_tokens", MAX_TOKENS);
    body.put("stream", stream);
    return body.toString();
  }

  private static String expectedText(String directive, int tokens) {
    return SimEngine.expectedText(0, prompt(directive), tokens);
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** A plain (uncommitted) error response: its status, the OpenAI envelope, the phase as type. */
  private static JsonNode plainError(HttpResponse<String> r, int status, String type) {
    assertThat(r.statusCode()).as("status of %s", r.body()).isEqualTo(status);
    JsonNode body = json(r.body());
    assertThat(fieldNames(body)).containsExactly("error");
    JsonNode error = body.get("error");
    assertThat(fieldNames(error)).containsExactlyInAnyOrder("message", "type", "param", "code");
    assertThat(error.get("type").asText()).isEqualTo(type);
    return error;
  }

  /**
   * A committed stream that failed: HTTP 200, output, then exactly one terminal event {@code
   * {"error":{"message","type":"decode","param":null,"code":<status as an integer>}}} and no
   * {@code [DONE]}.
   */
  private static JsonNode terminalError(RouterClient.SseResponse r, int status) {
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("text/event-stream");
    List<String> data = r.data();
    assertThat(data).as("events").isNotEmpty().doesNotContain("[DONE]");
    assertThat(data.stream().filter(d -> json(d).has("error")).count()).as("error events").isEqualTo(1);
    JsonNode last = json(data.get(data.size() - 1));
    assertThat(fieldNames(last)).as("terminal event keys").containsExactly("error");
    JsonNode error = last.get("error");
    assertThat(fieldNames(error)).as("error keys").containsExactlyInAnyOrder("message", "type", "param", "code");
    assertThat(error.get("type").asText()).isEqualTo("decode");
    assertThat(error.get("param").isNull()).as("param is present and null").isTrue();
    assertThat(error.get("code").isInt()).as("code is an integer").isTrue();
    assertThat(error.get("code").intValue()).isEqualTo(status);
    return error;
  }

  private static List<ReceivedRequest> received(List<String> iids) {
    return iids.stream().flatMap(iid -> fleet.engine(iid).received().stream()).toList();
  }

  private static int decodeRequests() {
    return received(DECODE).size();
  }

  /** The one engine among {@code iids} that received a request (and it received exactly one). */
  private static String theEngineThatReceived(List<String> iids) {
    List<String> hit = iids.stream().filter(iid -> !fleet.engine(iid).received().isEmpty()).toList();
    assertThat(hit).as("engines that received a request").hasSize(1);
    assertThat(fleet.engine(hit.get(0)).received()).hasSize(1);
    return hit.get(0);
  }

  /** The decode engine that was sent the request, which carried the producer's KV parameters. */
  private static String crossedDecodeEngine() {
    String iid = theEngineThatReceived(DECODE);
    JsonNode sent = fleet.engine(iid).received().get(0).body();
    assertThat(sent).isNotNull();
    assertThat(sent.path("kv_transfer_params").isObject()).as("decode leg carries kv_transfer_params").isTrue();
    return iid;
  }

  // ---------------------------------------------------------------- stream termination

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void doneBeforeAnyToken_is502WithTheSpecMessage(boolean stream) {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("done-first,phase=decode", stream));

    JsonNode error = plainError(r, 502, "decode");
    assertThat(error.get("message").asText())
        .isEqualTo("stream ended with [DONE] before any token arrived from decode engine " + crossedDecodeEngine());
  }

  @Test
  void closeBeforeDone_afterOutput_isATerminal502Event() {
    String directive = "eof-after=3,phase=decode";
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(directive, true));

    JsonNode error = terminalError(r, 502);
    String decode = crossedDecodeEngine();
    assertThat(error.get("message").asText())
        .isEqualTo("decode engine " + decode + " closed the stream before [DONE] after 3 tokens");
    assertThat(r.text()).isEqualTo(expectedText(directive, 3));
  }

  @Test
  void closeBeforeDone_nonStreaming_isPlain502() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("eof-after=3,phase=decode", false));

    JsonNode error = plainError(r, 502, "decode");
    assertThat(error.get("message").asText())
        .isEqualTo("decode engine " + crossedDecodeEngine() + " closed the stream before [DONE] after 3 tokens");
  }

  // ---------------------------------------------------------------- connection faults

  @Test
  void connectionResetMidStream_streaming_isATerminal502EventAfterTheTokens() {
    String directive = "reset-after=2,phase=decode";
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(directive, true));

    JsonNode error = terminalError(r, 502);
    String decode = crossedDecodeEngine();
    assertThat(error.get("message").asText()).contains("decode engine " + decode)
        .contains("closed the connection").contains("after 2 tokens");
    assertThat(r.text()).isEqualTo(expectedText(directive, 2));
    assertThat(r.chunks()).hasSize(3); // two tokens, then the terminal error
  }

  @Test
  void connectionResetMidStream_nonStreaming_isPlain502() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("reset-after=2,phase=decode", false));

    JsonNode error = plainError(r, 502, "decode");
    assertThat(error.get("message").asText()).contains("decode engine " + crossedDecodeEngine())
        .contains("closed the connection").contains("after 2 tokens");
  }

  @Test
  void decodeEngineClosingTheConnection_is502() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("refuse,phase=decode", true));

    JsonNode error = plainError(r, 502, "decode");
    String decode = crossedDecodeEngine();
    assertThat(error.get("message").asText())
        .startsWith("decode engine " + decode + " closed the connection before the response was complete")
        .contains("after 0 tokens");
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void prefillEngineClosingTheConnection_isPlain502NamingIt_andNoDecodeIsSent(boolean stream) {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("refuse,phase=prefill", stream));

    JsonNode error = plainError(r, 502, "prefill");
    String prefill = theEngineThatReceived(PREFILL);
    assertThat(error.get("message").asText())
        .startsWith("prefill engine " + prefill + " closed the connection before the response was complete");
    assertThat(decodeRequests()).isZero();
  }

  // ---------------------------------------------------------------- engine error statuses

  @Test
  void prefillEngineError_isPlain502NamingThePrefillPhase_andNoDecodeIsSent() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("status=500,phase=prefill", true));

    JsonNode error = plainError(r, 502, "prefill");
    assertThat(error.get("message").asText())
        .isEqualTo("prefill engine " + theEngineThatReceived(PREFILL) + " answered HTTP 500: Internal server error");
    assertThat(decodeRequests()).isZero();
  }

  @Test
  void decodeEngineErrorBeforeOutput_isPlain502() {
    HttpResponse<String> r = fleet.client.post("/v1/completions",
        body("status=500,message=decode blew up,phase=decode", true));

    JsonNode error = plainError(r, 502, "decode");
    assertThat(error.get("message").asText())
        .isEqualTo("decode engine " + crossedDecodeEngine() + " answered HTTP 500: decode blew up");
  }

  @Test
  void engineRejection_isRelayedWithItsStatus() {
    HttpResponse<String> r = fleet.client.post("/v1/completions",
        body("status=400,message=prompt too long,phase=prefill", false));

    JsonNode error = plainError(r, 400, "prefill");
    assertThat(error.get("message").asText()).contains("prompt too long");
    assertThat(decodeRequests()).isZero();
  }

  // ---------------------------------------------------------------- errors inside the stream

  @Test
  void errorObjectInsideTheStream_propagatesItsOwnStatus() {
    String directive = "error-after=2,code=503,message=engine overloaded,phase=decode";
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(directive, true));

    JsonNode error = terminalError(r, 503);
    assertThat(error.get("message").asText()).isEqualTo("decode engine " + crossedDecodeEngine()
        + " reported an error in its stream after 2 tokens: engine overloaded");
    assertThat(r.text()).isEqualTo(expectedText(directive, 2));
  }

  @Test
  void errorObjectInsideTheStream_nonStreaming_isPlainWithItsStatus() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("error-after=1,code=429,phase=decode", false));

    JsonNode error = plainError(r, 429, "decode");
    assertThat(error.get("message").asText()).isEqualTo("decode engine " + crossedDecodeEngine()
        + " reported an error in its stream after 1 token: Too many requests (simulated).");
  }

  /** Codes that are not an HTTP error status: 200, text, and a string of digits. */
  static Stream<String> codesThatAreNoErrorStatus() {
    return Stream.of("200", "overloaded", "\"503\"");
  }

  @ParameterizedTest
  @MethodSource("codesThatAreNoErrorStatus")
  void errorObjectWithACodeThatIsNoErrorStatus_streaming_endsWithCode500(String code) {
    String directive = "error-after=2,code=" + code + ",message=engine said no,phase=decode";
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(directive, true));

    JsonNode error = terminalError(r, 500);
    assertThat(error.get("message").asText()).isEqualTo("decode engine " + crossedDecodeEngine()
        + " reported an error in its stream after 2 tokens: engine said no");
    assertThat(r.text()).isEqualTo(expectedText(directive, 2));
  }

  @ParameterizedTest
  @MethodSource("codesThatAreNoErrorStatus")
  void errorObjectWithACodeThatIsNoErrorStatus_nonStreaming_isPlain500(String code) {
    HttpResponse<String> r = fleet.client.post("/v1/completions",
        body("error-after=2,code=" + code + ",message=engine said no,phase=decode", false));

    JsonNode error = plainError(r, 500, "decode");
    assertThat(error.get("message").asText()).isEqualTo("decode engine " + crossedDecodeEngine()
        + " reported an error in its stream after 2 tokens: engine said no");
  }

  // ---------------------------------------------------------------- timeouts

  @Test
  void silentFirstToken_is504() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("silence-first=forever,phase=decode", true));

    JsonNode error = plainError(r, 504, "decode");
    assertThat(error.get("message").asText()).isEqualTo("no first token within 500 ms from decode engine "
        + crossedDecodeEngine() + " (engine.first_token_timeout_s)");
  }

  @Test
  void responseHeaderDelay_spendsTheFirstTokenBudget() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("delay-headers=900,phase=decode", true));

    JsonNode error = plainError(r, 504, "decode");
    assertThat(error.get("message").asText()).startsWith("no first token within 500 ms from decode engine "
        + crossedDecodeEngine());
  }

  @Test
  void prefillTimeout_is504NamingTheEngineAndTheLimit() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("delay-headers=900,phase=prefill", true));

    JsonNode error = plainError(r, 504, "prefill");
    assertThat(error.get("message").asText()).isEqualTo("prefill engine " + theEngineThatReceived(PREFILL)
        + " did not answer within 500 ms (serving.prefill_timeout_s)");
    assertThat(decodeRequests()).isZero();
  }

  @Test
  void silenceAfterTokens_streaming_endsWithOneTerminalErrorEvent() {
    String directive = "silence-after=2,phase=decode";
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(directive, true));

    JsonNode error = terminalError(r, 504);
    String decode = crossedDecodeEngine();
    assertThat(error.get("message").asText()).isEqualTo("engine went silent between tokens: decode engine "
        + decode + " sent nothing for 300 ms after 2 tokens (engine.decode_read_timeout_s)");
    assertThat(r.text()).isEqualTo(expectedText(directive, 2));
  }

  @Test
  void silenceAfterTokens_nonStreaming_isPlain504() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body("silence-after=2,phase=decode", false));

    JsonNode error = plainError(r, 504, "decode");
    assertThat(error.get("message").asText()).startsWith("engine went silent between tokens: decode engine "
        + crossedDecodeEngine());
  }

  @Test
  void metadataChunksDuringSilence_resetTheSilenceTimer() {
    String directive = "silence-after=2,ms=700,metadata-every=100,phase=decode";
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(directive, true));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.endsWithDone()).isTrue();
    assertThat(r.data()).noneMatch(d -> d.contains("\"error\""));
    assertThat(r.text()).isEqualTo(expectedText(directive, MAX_TOKENS));
    crossedDecodeEngine();
  }

  // ---------------------------------------------------------------- descriptor validation

  /** Each spoiled descriptor and the specific problem the router must name for it. */
  static Stream<Arguments> descriptorFaults() {
    List<Arguments> cases = new ArrayList<>();
    for (boolean stream : new boolean[] {true, false}) {
      cases.add(Arguments.of("kv-missing-engine-id", stream, "the descriptor names no producer engine identity"));
      cases.add(Arguments.of("kv-bad-block-ids", stream, "remote_block_ids must be non-negative integers, got [\"a\",-1]"));
      cases.add(Arguments.of("kv-wrong-connector", stream,
          "the descriptor comes from connector 'p2pncclconnector' but the decode engine uses 'nixl'"));
      cases.add(Arguments.of("kv-none", stream, "the prefill response carries no kv_transfer_params"));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, stream={1}")
  @MethodSource("descriptorFaults")
  void unusableDescriptor_failsAsKvHandoffNamingTheProblem_andNoDecodeRequestIsSent(
      String fault, boolean stream, String problem) {
    HttpResponse<String> r = fleet.client.post("/v1/completions", body(fault + ",phase=prefill", stream));

    JsonNode error = plainError(r, 502, "prefill");
    String prefill = theEngineThatReceived(PREFILL);
    assertThat(error.get("message").asText())
        .startsWith("unusable KV handoff from prefill engine " + prefill + ": " + problem);
    assertThat(fleet.engine(prefill).prefillResponses()).hasSize(1);
    assertThat(decodeRequests()).as("decode requests").isZero();
  }

  // ---------------------------------------------------------------- opaque descriptor fields

  @Test
  void opaqueDescriptorFieldsFromADirective_reachDecodeVerbatim() {
    String directive = "kv-extra-field=x_from_prompt={\"k\":[1,2],\"s\":\"v\"}";
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(directive, true));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.endsWithDone()).isTrue();
    JsonNode produced = fleet.engine(theEngineThatReceived(PREFILL)).prefillResponses().get(0).kvTransferParams();
    JsonNode consumed = fleet.engine(crossedDecodeEngine()).received().get(0).body().get("kv_transfer_params");
    assertThat(produced.get("x_from_prompt").toString()).isEqualTo("{\"k\":[1,2],\"s\":\"v\"}");
    assertThat(consumed).isEqualTo(produced);
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void opaqueDescriptorFieldsOfTheEngines_reachDecodeVerbatim(boolean stream) {
    SimOptions sims = RoutedFleet.fastEngines()
        .kvExtraField("x_runtime_hint", Map.of("tier", 2, "hosts", List.of("a", "b")))
        .kvExtraField("x_epoch", 7)
        .kvExtraField("x_nothing", null)
        .kvExtraField("x_text", "kept as is")
        .build();
    try (RoutedFleet opaque = RoutedFleet.start(1, 1, sims, c -> c, null)) {
      String request = "{\"model\":\"narwhal-sim\",\"prompt\":\"carry my fields\",\"max_tokens\":3,\"stream\":"
          + stream + "}";
      if (stream) {
        RouterClient.SseResponse r = opaque.client.stream("/v1/completions", request);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.endsWithDone()).isTrue();
        assertThat(r.text()).isEqualTo(SimEngine.expectedText(0, "carry my fields", 3));
      } else {
        HttpResponse<String> r = opaque.client.post("/v1/completions", request);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r.body()).path("choices").path(0).path("text").asText())
            .isEqualTo(SimEngine.expectedText(0, "carry my fields", 3));
      }

      List<PrefillResponse> produced = opaque.engine("p0").prefillResponses();
      List<ReceivedRequest> consumed = opaque.engine("d0").received();
      assertThat(produced).hasSize(1);
      assertThat(consumed).hasSize(1);
      JsonNode returned = produced.get(0).kvTransferParams();
      assertThat(fieldNames(returned)).contains("x_runtime_hint", "x_epoch", "x_nothing", "x_text",
          "remote_engine_id", "remote_block_ids", "do_remote_prefill");
      // Exactly what the producer returned: nothing dropped, added, retyped or reordered in value.
      assertThat(consumed.get(0).body().get("kv_transfer_params")).isEqualTo(returned);
      opaque.assertReservationsReturnToZero();
    }
  }

  // ---------------------------------------------------------------- faults installed by the admin endpoint

  @Test
  void faultInstalledThroughTheAdminEndpoint_failsRequestsUntilCleared() {
    String fault = "[\"status=500,message=injected through the admin endpoint,phase=prefill\"]";
    try {
      for (String iid : PREFILL) {
        HttpResponse<String> installed = admin("POST", fleet.engine(iid), fault);
        assertThat(installed.statusCode()).isEqualTo(200);
        assertThat(json(installed.body()).get("faults").get(0).asText())
            .isEqualTo("status=500,message=injected through the admin endpoint,phase=prefill");
      }
      String ok = "{\"model\":\"narwhal-sim\",\"prompt\":\"no directive here\",\"max_tokens\":4}";

      HttpResponse<String> failed = fleet.client.post("/v1/completions", ok);
      JsonNode error = plainError(failed, 502, "prefill");
      assertThat(error.get("message").asText()).isEqualTo("prefill engine " + theEngineThatReceived(PREFILL)
          + " answered HTTP 500: injected through the admin endpoint");
      assertThat(decodeRequests()).isZero();

      for (String iid : PREFILL) {
        HttpResponse<String> cleared = admin("DELETE", fleet.engine(iid), null);
        assertThat(cleared.statusCode()).isEqualTo(200);
        assertThat(json(cleared.body()).get("faults")).isEmpty();
      }
      fleet.clearReceived();
      HttpResponse<String> served = fleet.client.post("/v1/completions", ok);
      assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
      assertThat(json(served.body()).path("choices").path(0).path("text").asText())
          .isEqualTo(SimEngine.expectedText(0, "no directive here", 4));
      crossedDecodeEngine();
    } finally {
      PREFILL.forEach(iid -> fleet.engine(iid).setFaults(FaultPlan.none()));
    }
  }

  /** A call to a simulator's own admin endpoint, as a script or an operator would make it. */
  private static HttpResponse<String> admin(String method, SimEngine engine, String body) {
    HttpRequest.BodyPublisher publisher =
        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body);
    HttpRequest request = HttpRequest.newBuilder(URI.create(engine.baseUrl() + "/admin/faults"))
        .timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .method(method, publisher)
        .build();
    try {
      return ADMIN_HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
