package narwhal.sim;

import static narwhal.sim.SimHttp.await;
import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.post;
import static narwhal.sim.SimHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every fault against an engine in the simple timing mode; {@link GpuFaultInjectionTest} runs them all in gpu mode. */
class FaultInjectionTest {
  private static final String PREFILL_PARAMS =
      "\"kv_transfer_params\":{\"do_remote_decode\":true,\"do_remote_prefill\":false}";

  SimEngine engine;

  /** The engine every test runs against: about 1 ms to the first token, then a token every 2 ms. */
  SimOptions options() {
    return SimOptions.builder().prefillBaseMillis(1).interTokenMillis(2).build();
  }

  @BeforeEach
  void start() {
    engine = SimEngine.start(options());
  }

  @AfterEach
  void stop() {
    engine.close();
  }

  private RawSse stream(String prompt, int maxTokens) throws IOException {
    return RawSse.post(engine.port(), "/v1/completions", completion(prompt, maxTokens, true))
        .readHead();
  }

  private static List<String> texts(List<String> events) {
    List<String> texts = new ArrayList<>();
    for (String event : events) {
      if (!event.equals("[DONE]")) {
        JsonNode choice = json(event).path("choices").path(0);
        texts.add(choice.has("delta") ? choice.path("delta").path("content").asText() : choice.path("text").asText());
      }
    }
    return texts;
  }

  @Test
  void refuse_closesConnectionWithoutResponse() throws IOException {
    engine.setFaults(FaultPlan.of("refuse"));
    try (RawSse raw = RawSse.post(engine.port(), "/v1/completions", completion("x", 2, true))) {
      assertThat(raw.readByte()).isEqualTo(-1);
    }
    assertThat(engine.stats().requests()).isEqualTo(1);
  }

  @Test
  void resetAfter_abortsTcpConnectionAfterNTokens() throws IOException {
    try (RawSse raw = stream("[[sim:reset-after=2]] go", 10)) {
      assertThat(raw.status()).isEqualTo(200);
      assertThat(raw.nextData()).contains("\"text\"");
      assertThat(raw.nextData()).contains("\"text\"");
      assertThatThrownBy(raw::nextData).isInstanceOf(SocketException.class);
    }
    await("stream ended", () -> engine.stats().activeStreams() == 0);
    assertThat(engine.stats().cancelledStreams()).isZero();
  }

  @Test
  void delayHeaders_holdsResponseAndCountsAsWaiting() throws IOException {
    engine.setFaults(FaultPlan.of("delay-headers=60000"));
    try (RawSse raw = RawSse.post(engine.port(), "/v1/completions", completion("x", 1, true))) {
      await("request waiting", () -> engine.stats().waitingRequests() == 1);
      raw.timeoutMillis(200);
      assertThatThrownBy(raw::readByte).isInstanceOf(SocketTimeoutException.class);
    }
    await("waiting released", () -> engine.stats().waitingRequests() == 0);
  }

  @Test
  void delayHeaders_thenAnswersNormally() {
    engine.setFaults(FaultPlan.of("delay-headers=100"));
    long started = System.nanoTime();
    HttpResponse<String> response = post(engine, "/v1/completions", completion("x", 1, false));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat((System.nanoTime() - started) / 1_000_000).isGreaterThanOrEqualTo(90);
  }

  @Test
  void status_answersWithVllmEnvelope() {
    engine.setFaults(FaultPlan.of("status=503,message=busy, try later"));
    HttpResponse<String> unavailable = post(engine, "/v1/completions", completion("x", 1, true));
    engine.setFaults(FaultPlan.of("status=429"));
    HttpResponse<String> limited = post(engine, "/v1/completions", completion("x", 1, true));

    assertThat(unavailable.statusCode()).isEqualTo(503);
    JsonNode error = json(unavailable.body()).get("error");
    assertThat(error.get("message").asText()).isEqualTo("busy, try later");
    assertThat(error.get("type").asText()).isEqualTo("InternalServerError");
    assertThat(error.get("param").isNull()).isTrue();
    assertThat(error.get("code").asInt()).isEqualTo(503);
    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(json(limited.body()).get("error").get("type").asText()).isEqualTo("RateLimitError");
  }

  @Test
  void silenceFirstForever_sendsHeadersThenNothing_andClientCloseIsCounted() throws IOException {
    try (RawSse raw = stream("[[sim:silence-first=forever]] x", 3)) {
      assertThat(raw.status()).isEqualTo(200);
      assertThat(raw.header("content-type")).startsWith("text/event-stream");
      raw.timeoutMillis(200);
      assertThatThrownBy(raw::nextData).isInstanceOf(SocketTimeoutException.class);
      assertThat(engine.stats().activeStreams()).isEqualTo(1);
    }
    await("cancellation seen", () -> engine.stats().cancelledStreams() == 1);
    assertThat(engine.stats().activeStreams()).isZero();
    await("connection closed", () -> engine.stats().openConnections() == 0);
  }

  @Test
  void silenceFirst_delaysFirstTokenThenStreamsNormally() throws IOException {
    try (RawSse raw = stream("[[sim:silence-first=150]] x", 2)) {
      long headersAt = System.nanoTime();
      assertThat(raw.nextData()).contains("\"text\"");
      assertThat((System.nanoTime() - headersAt) / 1_000_000).isGreaterThanOrEqualTo(120);
      assertThat(raw.nextData()).contains("\"length\"");
      assertThat(raw.nextData()).isEqualTo("[DONE]");
      assertThat(raw.nextData()).isNull();
    }
  }

  @Test
  void silenceAfter_withMetadata_sendsEmptyChunksButNoTokens() throws IOException {
    try (RawSse raw = stream("[[sim:silence-after=2,metadata-every=20]] x", 10)) {
      List<String> tokens = texts(List.of(raw.nextData(), raw.nextData()));
      assertThat(tokens).allSatisfy(token -> assertThat(token).isNotEmpty());
      for (int i = 0; i < 3; i++) {
        JsonNode metadata = json(raw.nextData());
        assertThat(metadata.get("choices").get(0).get("text").asText()).isEmpty();
        assertThat(metadata.get("choices").get(0).get("finish_reason").isNull()).isTrue();
      }
      assertThat(engine.stats().generationTokens()).isEqualTo(2);
    }
    await("cancellation seen", () -> engine.stats().cancelledStreams() == 1);
  }

  @Test
  void silenceAfter_chatMetadataChunkHasEmptyDelta() throws IOException {
    String body =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"[[sim:silence-after=0,metadata-every=20]]\"}],"
            + "\"stream\":true}";
    try (RawSse raw = RawSse.post(engine.port(), "/v1/chat/completions", body).readHead()) {
      assertThat(json(raw.nextData()).get("choices").get(0).get("delta").get("role").asText())
          .isEqualTo("assistant");
      assertThat(json(raw.nextData()).get("choices").get(0).get("delta").toString()).isEqualTo("{}");
    }
  }

  @Test
  void silenceAfter_withDuration_resumesAndFinishes() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("[[sim:silence-after=1,ms=100]] x", 3, true));

    List<String> events = sseData(response.body());
    assertThat(texts(events)).isEqualTo(SimEngine.expectedTokens(0, "[[sim:silence-after=1,ms=100]] x", 3));
    assertThat(events).last().isEqualTo("[DONE]");
  }

  /** Every block of a streaming response as sent, comments included, until the body ends. */
  private static List<String> allBlocks(RawSse raw) throws IOException {
    List<String> blocks = new ArrayList<>();
    for (String block = raw.nextBlock(); block != null; block = raw.nextBlock()) {
      blocks.add(block);
    }
    return blocks;
  }

  private static final String KEEP_ALIVE = ": keep-alive";

  @Test
  void silenceAfter_withComments_sendsKeepAliveCommentLinesButNoEvents() throws IOException {
    try (RawSse raw = stream("[[sim:silence-after=2,comments=20]] x", 10)) {
      List<String> tokens = texts(List.of(raw.nextData(), raw.nextData()));
      assertThat(tokens).allSatisfy(token -> assertThat(token).isNotEmpty());
      for (int i = 0; i < 3; i++) {
        assertThat(raw.nextBlock()).isEqualTo(KEEP_ALIVE);
      }
      assertThat(engine.stats().generationTokens()).isEqualTo(2);
    }
    await("cancellation seen", () -> engine.stats().cancelledStreams() == 1);
  }

  @Test
  void silenceAfter_withDurationAndComments_addsOnlyCommentsAtMostOnePerInterval() throws IOException {
    String prompt = "[[sim:silence-after=2,ms=300,comments=50]] x";
    List<String> blocks;
    try (RawSse raw = stream(prompt, 4)) {
      blocks = allBlocks(raw);
    }

    List<String> comments = blocks.stream().filter(KEEP_ALIVE::equals).toList();
    List<String> events = blocks.stream().filter(b -> !b.equals(KEEP_ALIVE)).toList();
    // The timers never fire early, and the resume is due before a comment due at 300 ms.
    assertThat(comments).hasSizeBetween(1, 300 / 50);
    assertThat(blocks.subList(0, 2)).allSatisfy(b -> assertThat(b).startsWith("data: {"));
    assertThat(blocks.subList(2, 2 + comments.size())).containsOnly(KEEP_ALIVE);
    assertThat(events).allSatisfy(b -> assertThat(b).startsWith("data: "));
    List<String> data = events.stream().map(b -> b.substring("data: ".length())).toList();
    assertThat(texts(data)).isEqualTo(SimEngine.expectedTokens(0, prompt, 4));
    assertThat(data).hasSize(5).last().isEqualTo("[DONE]");
    assertThat(engine.stats().generationTokens()).isEqualTo(4);
  }

  @Test
  void silenceFirst_withCommentsFromTheAdminEndpoint_commentsUntilTheFirstTokenOnly() throws IOException {
    HttpResponse<String> installed = post(engine, "/admin/faults", "[\"silence-first=200,comments=20\"]");
    List<String> blocks;
    try (RawSse raw = stream("x", 3)) {
      blocks = allBlocks(raw);
    }

    assertThat(installed.statusCode()).isEqualTo(200);
    int firstEvent = blocks.indexOf(blocks.stream().filter(b -> !b.equals(KEEP_ALIVE)).findFirst().orElseThrow());
    assertThat(firstEvent).isPositive();
    assertThat(blocks.subList(0, firstEvent)).containsOnly(KEEP_ALIVE);
    List<String> data = blocks.subList(firstEvent, blocks.size()).stream()
        .map(b -> b.substring("data: ".length())).toList();
    assertThat(texts(data)).isEqualTo(SimEngine.expectedTokens(0, "x", 3));
    assertThat(data).hasSize(4).last().isEqualTo("[DONE]");
  }

  @Test
  void silenceWithComments_nonStreaming_isAPlainResponse() {
    String prompt = "[[sim:silence-first=50,comments=10]] [[sim:silence-after=1,ms=50,comments=10]] x";
    HttpResponse<String> response = post(engine, "/v1/completions", completion(prompt, 3, false));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response.body()).get("choices").get(0).get("text").asText())
        .isEqualTo(String.join("", SimEngine.expectedTokens(0, prompt, 3)));
  }

  @Test
  void eofAfter_endsChunkedBodyCleanlyWithoutDone() {
    HttpResponse<String> response = post(engine, "/v1/completions", completion("[[sim:eof-after=2]] x", 5, true));

    assertThat(response.statusCode()).isEqualTo(200);
    List<String> events = sseData(response.body());
    assertThat(events).hasSize(2).doesNotContain("[DONE]");
    // The connection stays usable: the response ended cleanly.
    assertThat(post(engine, "/v1/completions", completion("x", 1, false)).statusCode()).isEqualTo(200);
    assertThat(engine.stats().totalConnections()).isEqualTo(1);
  }

  @Test
  void doneFirst_sendsDoneBeforeAnyToken() {
    String completions = post(engine, "/v1/completions", completion("[[sim:done-first]]", 5, true)).body();
    String chatBody =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"[[sim:done-first]]\"}],\"stream\":true}";
    List<String> chat = sseData(post(engine, "/v1/chat/completions", chatBody).body());

    assertThat(completions).isEqualTo("data: [DONE]\n\n");
    assertThat(chat).hasSize(2);
    assertThat(json(chat.get(0)).get("choices").get(0).get("delta").get("role").asText()).isEqualTo("assistant");
    assertThat(chat.get(1)).isEqualTo("[DONE]");
  }

  @Test
  void errorAfter_sendsErrorEventThenDone() {
    String prompt = "[[sim:error-after=1,code=503,message=engine fell over]] x";
    List<String> events = sseData(post(engine, "/v1/completions", completion(prompt, 5, true)).body());

    assertThat(events).hasSize(3);
    assertThat(json(events.get(0)).get("choices").get(0).get("text").asText()).isNotEmpty();
    JsonNode error = json(events.get(1)).get("error");
    assertThat(error.get("message").asText()).isEqualTo("engine fell over");
    assertThat(error.get("type").asText()).isEqualTo("InternalServerError");
    assertThat(error.get("param").isNull()).isTrue();
    assertThat(error.get("code").asInt()).isEqualTo(503);
    assertThat(events.get(2)).isEqualTo("[DONE]");
  }

  @Test
  void errorAfter_carriesAnyIntegerOrStringCodeAsGiven() {
    JsonNode ok = json(sseData(post(engine, "/v1/completions",
        completion("[[sim:error-after=1,code=200]] x", 5, true)).body()).get(1)).get("error");
    JsonNode text = json(sseData(post(engine, "/v1/completions",
        completion("[[sim:error-after=1,code=overloaded,message=busy]] x", 5, true)).body()).get(1)).get("error");
    JsonNode digits = json(sseData(post(engine, "/v1/completions",
        completion("[[sim:error-after=0,code=\"503\"]] x", 5, true)).body()).get(0)).get("error");

    assertThat(ok.get("code").isInt()).isTrue();
    assertThat(ok.get("code").asInt()).isEqualTo(200);
    assertThat(ok.get("type").asText()).isEqualTo("InternalServerError");
    assertThat(ok.get("message").asText()).isEqualTo("Internal server error");
    assertThat(text.get("code").isTextual()).isTrue();
    assertThat(text.get("code").asText()).isEqualTo("overloaded");
    assertThat(text.get("message").asText()).isEqualTo("busy");
    assertThat(digits.get("code").isTextual()).isTrue();
    assertThat(digits.get("code").asText()).isEqualTo("503");
  }

  @Test
  void errorAfter_withACodeThatIsNoErrorStatus_isHttp500WhenNotStreaming() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("[[sim:error-after=0,code=200,message=odd]] x", 5, false));

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(json(response.body()).get("error").get("message").asText()).isEqualTo("odd");
    assertThat(json(response.body()).get("error").get("code").asInt()).isEqualTo(500);
  }

  @Test
  void errorAfter_onNonStreamingRequest_isHttpError() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("[[sim:error-after=0]] x", 5, false));

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(json(response.body()).get("error").get("message").asText()).isEqualTo("Internal server error");
  }

  @Test
  void eosAfter_finishesWithStop() {
    List<String> events =
        sseData(post(engine, "/v1/completions", completion("[[sim:eos-after=2]] x", 5, true)).body());

    assertThat(events).hasSize(3);
    assertThat(json(events.get(1)).get("choices").get(0).get("finish_reason").asText()).isEqualTo("stop");
  }

  @Test
  void failFirst_appliesToFirstKRequestsThenRecovers() {
    engine.setFaults(FaultPlan.of("fail-first=2,then=status=503,message=warming, up"));
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      statuses.add(post(engine, "/v1/completions", completion("x", 1, false)).statusCode());
    }

    assertThat(statuses).containsExactly(503, 503, 200);
  }

  @Test
  void countModifier_andPhase_restrictEngineFaults() {
    engine.setFaults(FaultPlan.of("status=500,count=1,phase=prefill"));

    int decodeStatus = post(engine, "/v1/completions", completion("x", 1, false)).statusCode();
    int firstPrefill = post(engine, "/v1/completions", completion("x", 1, false, PREFILL_PARAMS)).statusCode();
    int secondPrefill = post(engine, "/v1/completions", completion("x", 1, false, PREFILL_PARAMS)).statusCode();

    assertThat(decodeStatus).isEqualTo(200);
    assertThat(firstPrefill).isEqualTo(500);
    assertThat(secondPrefill).isEqualTo(200);
  }

  @Test
  void directivePhase_skipsTheOtherLeg() {
    String prompt = "[[sim:status=502,phase=decode]] same prompt on both legs";

    int prefillStatus = post(engine, "/v1/completions", completion(prompt, 1, false, PREFILL_PARAMS)).statusCode();
    int decodeStatus = post(engine, "/v1/completions", completion(prompt, 1, false)).statusCode();

    assertThat(prefillStatus).isEqualTo(200);
    assertThat(decodeStatus).isEqualTo(502);
  }

  @Test
  void countedDirective_failsOnceThenSucceedsOnRetry() {
    String body = completion("[[sim:status=503,count=1]] retry me", 1, false);

    assertThat(post(engine, "/v1/completions", body).statusCode()).isEqualTo(503);
    assertThat(post(engine, "/v1/completions", body).statusCode()).isEqualTo(200);
  }

  @Test
  void severalDirectives_combine() {
    List<String> events =
        sseData(
            post(engine, "/v1/completions",
                    completion("[[sim:silence-after=1,ms=20]] [[sim:eos-after=2]] x", 9, true))
                .body());

    assertThat(events).hasSize(3);
    assertThat(json(events.get(1)).get("choices").get(0).get("finish_reason").asText()).isEqualTo("stop");
  }

  @Test
  void badDirective_is400() {
    HttpResponse<String> response = post(engine, "/v1/completions", completion("[[sim:explode]]", 1, false));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response.body()).get("error").get("message").asText()).contains("unknown fault 'explode'");
  }

  @Test
  void dead_failsHealthAndEveryV1Request() {
    engine.setFaults(FaultPlan.of("dead"));

    assertThat(SimHttp.get(engine, "/health").statusCode()).isEqualTo(503);
    assertThat(SimHttp.get(engine, "/health").body()).isEmpty();
    assertThat(SimHttp.get(engine, "/v1/models").statusCode()).isEqualTo(503);
    HttpResponse<String> completion = post(engine, "/v1/completions", completion("x", 1, true));
    assertThat(completion.statusCode()).isEqualTo(503);
    assertThat(json(completion.body()).get("error").get("code").asInt()).isEqualTo(503);

    engine.setFaults(FaultPlan.none());
    assertThat(SimHttp.get(engine, "/health").statusCode()).isEqualTo(200);
  }

  @Test
  void adminEndpoints_installListAndClearFaults() {
    HttpResponse<String> installed =
        post(engine, "/admin/faults", "{\"faults\":[\"status=418\",\"eos-after=1,phase=decode\"]}");
    HttpResponse<String> teapot = post(engine, "/v1/completions", completion("x", 1, false));
    HttpResponse<String> listed = SimHttp.get(engine, "/admin/faults");
    HttpResponse<String> cleared = SimHttp.delete(engine, "/admin/faults");
    HttpResponse<String> rejected = post(engine, "/admin/faults", "[\"nonsense=1\"]");

    assertThat(installed.statusCode()).isEqualTo(200);
    assertThat(teapot.statusCode()).isEqualTo(418);
    assertThat(json(listed.body()).get("faults").toString())
        .isEqualTo("[\"status=418\",\"eos-after=1,phase=decode\"]");
    assertThat(json(cleared.body()).get("faults")).isEmpty();
    assertThat(engine.faults().isEmpty()).isTrue();
    assertThat(rejected.statusCode()).isEqualTo(400);
    assertThat(post(engine, "/v1/completions", completion("x", 1, false)).statusCode()).isEqualTo(200);
  }
}
