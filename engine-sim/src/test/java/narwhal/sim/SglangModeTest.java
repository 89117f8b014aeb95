package narwhal.sim;

import static narwhal.sim.SimHttp.await;
import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.post;
import static narwhal.sim.SimHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** SGLang mode: both legs carry the same rendezvous; the decode pulls KV from the prefill's room. */
class SglangModeTest {

  private static final long SEED = 5;
  private static final String PROMPT = "tell me about narwhals";

  private SimEngine prefill;
  private SimEngine decode;

  private void start(long kvWaitMillis, int bootstrapPort) {
    prefill = SimEngine.start(sglang(kvWaitMillis).bootstrapPort(bootstrapPort).build());
    decode = SimEngine.start(sglang(kvWaitMillis).build());
  }

  private void start(long kvWaitMillis) {
    start(kvWaitMillis, 0);
  }

  private static SimOptions.Builder sglang(long kvWaitMillis) {
    return SimOptions.builder().dialect(SimDialect.SGLANG).seed(SEED).interTokenMillis(1).prefillBaseMillis(1)
        .kvWaitMillis(kvWaitMillis);
  }

  @AfterEach
  void stop() {
    if (prefill != null) {
      prefill.close();
    }
    if (decode != null) {
      decode.close();
    }
  }

  private String rendezvous(long room) {
    return "\"bootstrap_host\":\"127.0.0.1\",\"bootstrap_port\":" + prefill.bootstrapPort()
        + ",\"bootstrap_room\":" + room;
  }

  private static CompletableFuture<HttpResponse<String>> postAsync(SimEngine engine, String body) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(engine.baseUrl() + "/v1/completions"))
        .timeout(Duration.ofSeconds(20))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
    return SimHttp.CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void bothLegsAtOnce_decodeStreamsTheDeterministicTokens_prefillAnswersOneToken() {
    start(5_000);
    String body = completion(PROMPT, 6, true, rendezvous(42));

    CompletableFuture<HttpResponse<String>> decodeLeg = postAsync(decode, body);
    CompletableFuture<HttpResponse<String>> prefillLeg = postAsync(prefill, body);

    HttpResponse<String> d = decodeLeg.join();
    HttpResponse<String> p = prefillLeg.join();
    assertThat(d.statusCode()).isEqualTo(200);
    assertThat(text(sseData(d.body()))).isEqualTo(SimEngine.expectedText(SEED, PROMPT, 6));
    assertThat(p.statusCode()).isEqualTo(200);
    List<String> prefillEvents = sseData(p.body());
    assertThat(text(prefillEvents)).isEqualTo(SimEngine.expectedText(SEED, PROMPT, 1));
    assertThat(prefillEvents).last().isEqualTo("[DONE]");
    assertThat(prefill.stats().prefills()).isEqualTo(1);
    assertThat(decode.stats().kvPulls()).isEqualTo(1);
    assertThat(decode.stats().prefills()).isZero();
  }

  @Test
  void prefillFirst_thenDecode_nonStreaming_stillMeetInTheRoom() {
    start(5_000);
    String body = completion(PROMPT, 4, false, rendezvous(7));

    CompletableFuture<HttpResponse<String>> prefillLeg = postAsync(prefill, body);
    await("the prefill to start", () -> prefill.stats().activeRequests() == 1);
    HttpResponse<String> d = postAsync(decode, body).join();

    assertThat(d.statusCode()).isEqualTo(200);
    assertThat(json(d.body()).path("choices").get(0).path("text").asText())
        .isEqualTo(SimEngine.expectedText(SEED, PROMPT, 4));
    JsonNode p = json(prefillLeg.join().body());
    assertThat(p.path("choices").get(0).path("finish_reason").asText()).isEqualTo("length");
  }

  @Test
  void decodeWithoutItsPrefill_streaming_endsWithAnInStreamErrorAfterTheKvWait() {
    start(150);

    HttpResponse<String> d = post(decode, "/v1/completions", completion(PROMPT, 4, true, rendezvous(9)));

    assertThat(d.statusCode()).isEqualTo(200);
    List<String> events = sseData(d.body());
    assertThat(events).hasSize(2).last().isEqualTo("[DONE]");
    JsonNode error = json(events.get(0)).path("error");
    assertThat(error.path("code").asInt()).isEqualTo(500);
    assertThat(error.path("message").asText()).contains("KV transfer for bootstrap room 9").contains("pending");
    assertThat(decode.stats().kvPulls()).isZero();
  }

  @Test
  void decodeWithoutItsPrefill_nonStreaming_isHttp500InSglangsFlatErrorBody() {
    start(150);

    HttpResponse<String> d = post(decode, "/v1/completions", completion(PROMPT, 4, false, rendezvous(9)));

    assertThat(d.statusCode()).isEqualTo(500);
    JsonNode body = json(d.body());
    assertThat(body.path("object").asText()).isEqualTo("error");
    assertThat(body.path("code").asInt()).isEqualTo(500);
    assertThat(body.path("message").asText()).contains("KV transfer for bootstrap room 9");
  }

  @Test
  void prefillWithoutADecode_failsAfterTheKvWait() {
    start(150);

    HttpResponse<String> p = post(prefill, "/v1/completions", completion(PROMPT, 4, false, rendezvous(3)));

    assertThat(p.statusCode()).isEqualTo(500);
    assertThat(json(p.body()).path("message").asText())
        .isEqualTo("no decode engine bootstrapped room 3 within 150 ms");
  }

  @Test
  void prefillFailingAfterItStarted_failsTheWaitingDecode() {
    start(5_000);
    String body = completion("[[sim:error-after=0,phase=prefill]] " + PROMPT, 4, true, rendezvous(11));

    CompletableFuture<HttpResponse<String>> decodeLeg = postAsync(decode, body);
    HttpResponse<String> p = postAsync(prefill, body).join();
    HttpResponse<String> d = decodeLeg.join();

    assertThat(json(sseData(p.body()).get(0)).path("error").path("code").asInt()).isEqualTo(500);
    assertThat(json(sseData(d.body()).get(0)).path("error").path("message").asText())
        .contains("failed: the prefill request failed");
  }

  @Test
  void prefillRejectedOutright_leavesTheDecodeWaiting_untilItIsCancelled() throws IOException {
    start(30_000);
    String body = completion("[[sim:status=503,phase=prefill]] " + PROMPT, 4, true, rendezvous(12));

    try (RawSse d = RawSse.post(decode.port(), "/v1/completions", body).readHead()) {
      HttpResponse<String> p = post(prefill, "/v1/completions", body);
      assertThat(p.statusCode()).isEqualTo(503);
      assertThat(json(p.body()).path("object").asText()).isEqualTo("error");
      assertThat(d.status()).isEqualTo(200);
      assertThat(decode.stats().activeRequests()).isEqualTo(1);
    }

    await("the decode to see the cancellation", () -> decode.stats().cancelledRequests() == 1);
    assertThat(decode.stats().activeRequests()).isZero();
  }

  @Test
  void decodeRejected_leavesThePrefillWaitingForItsConsumer_untilItIsCancelled() throws IOException {
    start(30_000);
    String body = completion("[[sim:status=500,phase=decode]] " + PROMPT, 4, true, rendezvous(13));

    try (RawSse p = RawSse.post(prefill.port(), "/v1/completions", body).readHead()) {
      HttpResponse<String> d = post(decode, "/v1/completions", body);
      assertThat(d.statusCode()).isEqualTo(500);
      assertThat(p.status()).isEqualTo(200);
      assertThat(prefill.stats().activeRequests()).isEqualTo(1);
    }

    await("the prefill to see the cancellation", () -> prefill.stats().cancelledRequests() == 1);
  }

  @Test
  void noRendezvous_isAPlainCompletion() {
    start(5_000);

    HttpResponse<String> r = post(decode, "/v1/completions", completion(PROMPT, 3, true));

    assertThat(text(sseData(r.body()))).isEqualTo(SimEngine.expectedText(SEED, PROMPT, 3));
    assertThat(decode.stats().kvPulls()).isZero();
    assertThat(decode.stats().prefills()).isZero();
  }

  @Test
  void malformedRendezvous_is400() {
    start(5_000);

    HttpResponse<String> noRoom =
        post(decode, "/v1/completions", completion(PROMPT, 3, false, "\"bootstrap_host\":\"127.0.0.1\""));
    HttpResponse<String> badRoom = post(decode, "/v1/completions",
        completion(PROMPT, 3, false, "\"bootstrap_host\":\"h\",\"bootstrap_room\":-1"));
    HttpResponse<String> badPort = post(decode, "/v1/completions",
        completion(PROMPT, 3, false, "\"bootstrap_host\":\"h\",\"bootstrap_port\":\"x\",\"bootstrap_room\":1"));

    assertThat(noRoom.statusCode()).isEqualTo(400);
    assertThat(json(noRoom.body()).path("param").asText()).isEqualTo("bootstrap_room");
    assertThat(json(badRoom.body()).path("param").asText()).isEqualTo("bootstrap_room");
    assertThat(json(badPort.body()).path("param").asText()).isEqualTo("bootstrap_port");
  }

  @Test
  void separateBootstrapPort_servesTheRoomsThere() throws IOException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    start(5_000, port);
    assertThat(prefill.bootstrapPort()).isEqualTo(port);
    String body = completion(PROMPT, 3, true, rendezvous(21));

    CompletableFuture<HttpResponse<String>> decodeLeg = postAsync(decode, body);
    HttpResponse<String> p = postAsync(prefill, body).join();

    assertThat(p.statusCode()).isEqualTo(200);
    assertThat(text(sseData(decodeLeg.join().body()))).isEqualTo(SimEngine.expectedText(SEED, PROMPT, 3));
  }

  @Test
  void bootstrapEndpoint_rejectsAMalformedRoom_andAnswersPendingAfterTheWait() {
    start(5_000);

    HttpResponse<String> bad = SimHttp.get(prefill, "/bootstrap/rooms/abc");
    HttpResponse<String> pending = SimHttp.get(prefill, "/bootstrap/rooms/99?wait_ms=10");

    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(pending.statusCode()).isEqualTo(200);
    assertThat(json(pending.body()).path("state").asText()).isEqualTo("pending");
  }

  /** The concatenated text of the completion token chunks among {@code events}. */
  private static String text(List<String> events) {
    StringBuilder text = new StringBuilder();
    for (String event : events) {
      if (!event.equals("[DONE]")) {
        JsonNode choices = json(event).path("choices");
        if (choices.size() > 0) {
          text.append(choices.get(0).path("text").asText(""));
        }
      }
    }
    return text.toString();
  }
}
