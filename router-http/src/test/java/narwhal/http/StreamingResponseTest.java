package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import narwhal.api.RouterError;
import narwhal.http.Events.Route;
import narwhal.testing.ScriptedCompletionService;
import narwhal.testing.ScriptedCompletionService.Call;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code "stream": true}: the commit rule, the relayed SSE frames and the terminal event. */
class StreamingResponseTest extends FrontEndTestSupport {

  private static final String COMPLETION = "{\"model\":\"served-model\",\"prompt\":\"Say hi\",\"stream\":true}";
  private static final String CHAT =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,"
          + "\"stream_options\":{\"include_usage\":true}}";

  @Test
  void completions_relaysChunksWithRouterIdentity_thenDone() throws Exception {
    service.script(
        call ->
            call.stream(
                Events.completionToken("Hel"),
                Events.completionToken("lo"),
                Events.completionFinal(" world", "stop", "\"END\"")));

    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", COMPLETION);
      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(200);
      assertThat(response.headers())
          .containsEntry("content-type", "text/event-stream")
          .containsEntry("cache-control", "no-cache")
          .containsEntry("transfer-encoding", "chunked")
          .containsEntry("x-request-id", "rid-1");
      List<String> data = response.sseData();
      assertThat(data).hasSize(4);
      assertThat(data.get(3)).isEqualTo("[DONE]");
      StringBuilder text = new StringBuilder();
      for (String chunk : data.subList(0, 3)) {
        JsonNode json = json(chunk);
        assertThat(json.get("id").asText()).isEqualTo("cmpl-rid-1");
        assertThat(json.get("model").asText()).isEqualTo("served-model");
        assertThat(json.get("created").asLong()).isEqualTo(ScriptedCompletionService.CREATED);
        assertThat(json.get("object").asText()).isEqualTo("text_completion");
        assertThat(json.get("choices").get(0).has("token_ids")).isFalse();
        text.append(json.get("choices").get(0).get("text").asText());
      }
      assertThat(text.toString()).isEqualTo("Hello world");
      JsonNode last = json(data.get(2)).get("choices").get(0);
      assertThat(last.get("finish_reason").asText()).isEqualTo("stop");
      assertThat(last.get("stop_reason").asText()).isEqualTo("END");
    }
    Call call = service.nextCall();
    assertThat(call.request.getStream()).isTrue();
    assertThat(call.handle.cancels.get()).isZero();
  }

  @Test
  void chat_relaysRoleTokensFinishAndUsage_thenDone() throws Exception {
    service.script(
        call ->
            call.stream(
                Events.chatRole(),
                Events.chatToken("Hi"),
                Events.chatDelta("!", "{\"content\":\"!\"}", "stop"),
                Events.usageChunk(Route.CHAT, 9, 2)));

    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/chat/completions", CHAT);
      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(200);
      List<String> data = response.sseData();
      assertThat(data).hasSize(5).last().isEqualTo("[DONE]");
      for (String chunk : data.subList(0, 4)) {
        JsonNode json = json(chunk);
        assertThat(json.get("id").asText()).isEqualTo("chatcmpl-rid-1");
        assertThat(json.get("model").asText()).isEqualTo("served-model");
        assertThat(json.get("created").asLong()).isEqualTo(ScriptedCompletionService.CREATED);
        assertThat(json.has("prompt_token_ids")).isFalse();
      }
      assertThat(json(data.get(0)).at("/choices/0/delta/role").asText()).isEqualTo("assistant");
      assertThat(json(data.get(1)).at("/choices/0/delta/content").asText()).isEqualTo("Hi");
      assertThat(json(data.get(2)).at("/choices/0/finish_reason").asText()).isEqualTo("stop");
      JsonNode usage = json(data.get(3)).get("usage");
      assertThat(usage.get("total_tokens").asLong()).isEqualTo(11);
      assertThat(usage.at("/prompt_tokens_details/cached_tokens").asLong()).isEqualTo(4);
    }
  }

  @Test
  void tokenIds_keptWhenTheClientAskedForThem() throws Exception {
    service.script(call -> call.stream(Events.completionToken("a")));

    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post(
          "/v1/completions", "{\"prompt\":\"x\",\"stream\":true,\"return_token_ids\":true}");
      List<String> data = http.readResponse().sseData();

      assertThat(json(data.get(0)).at("/choices/0/token_ids/0").asInt()).isEqualTo(17);
    }
  }

  @Test
  void eventsWithoutChunkJson_areSynthesisedForTheRoute() throws Exception {
    service.script(call -> call.stream(Events.bareToken("a"), Events.bareToken("b")));

    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", "{\"prompt\":\"x\",\"stream\":true}");
      List<String> completions = http.readResponse().sseData();
      http.post("/v1/chat/completions", CHAT);
      List<String> chat = http.readResponse().sseData();

      assertThat(json(completions.get(0)))
          .isEqualTo(
              json(
                  "{\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"a\","
                      + "\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}],"
                      + "\"usage\":null,\"id\":\"cmpl-rid-1\",\"model\":\"served-model\","
                      + "\"created\":1700000000}"));
      assertThat(json(chat.get(1)))
          .isEqualTo(
              json(
                  "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                      + "\"delta\":{\"content\":\"b\"},\"logprobs\":null,\"finish_reason\":null,"
                      + "\"stop_reason\":null}],\"id\":\"chatcmpl-rid-2\","
                      + "\"model\":\"served-model\",\"created\":1700000000}"));
      assertThat(chat).last().isEqualTo("[DONE]");
    }
  }

  @ParameterizedTest
  @CsvSource({
    "502, decode, decode, Upstream request failed, -1",
    "504, decode, decode, engine went silent between tokens, -1",
    "503, backend_unavailable, backend_unavailable, no live engines, 1",
    "429, server_overloaded_error, , router in-flight limit reached, 1"
  })
  void errorBeforeStart_isAPlainHttpError(
      int status, String type, String code, String message, int retryAfter) throws Exception {
    RouterError error =
        new RouterError(status, type, code, message, null, retryAfter < 0 ? null : retryAfter);
    service.script(call -> call.after(5, () -> call.sink.onError(error)));

    var response = post("/v1/completions", COMPLETION);

    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(response.headers().firstValue("x-request-id")).hasValue("rid-1");
    if (retryAfter < 0) {
      assertThat(response.headers().firstValue("retry-after")).isEmpty();
    } else {
      assertThat(response.headers().firstValue("retry-after")).hasValue(String.valueOf(retryAfter));
    }
    String codeJson = code == null ? "null" : "\"" + code + "\"";
    assertThat(json(response.body()))
        .isEqualTo(
            json(
                "{\"error\":{\"message\":\"" + message + "\",\"type\":\"" + type
                    + "\",\"param\":null,\"code\":" + codeJson + "}}"));
  }

  @Test
  void errorAfterStart_endsThe200StreamWithOneErrorEvent_andKeepsTheConnection() throws Exception {
    service.script(
        call ->
            call.sequence(
                2,
                () -> call.sink.onStart(call.start()),
                () -> call.sink.onEvent(Events.completionToken("partial")),
                () ->
                    call.sink.onError(
                        RouterError.of(502, "decode", "failed", "Upstream request failed"))));

    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", COMPLETION);
      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(200);
      List<String> data = response.sseData();
      assertThat(data).hasSize(2);
      assertThat(json(data.get(0)).at("/choices/0/text").asText()).isEqualTo("partial");
      assertThat(json(data.get(1)))
          .isEqualTo(
              json(
                  "{\"error\":{\"message\":\"Upstream request failed\",\"type\":\"decode\","
                      + "\"param\":null,\"code\":502}}"));
      assertThat(json(data.get(1)).at("/error/code").isInt()).isTrue();
      // The body is properly terminated, so the same connection serves the next request.
      http.send("GET /health HTTP/1.1\r\nHost: test\r\n\r\n");
      assertThat(http.readResponse().status()).isEqualTo(200);
    }
  }

  @Test
  void nothingIsWrittenBeforeStart() throws Exception {
    service.script(call -> {});

    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", COMPLETION);
      Call call = service.nextCall();
      http.socket.setSoTimeout(200);

      assertThat(readsNothing(http)).isTrue();

      http.socket.setSoTimeout(10_000);
      call.loop.execute(() -> call.sink.onError(RouterError.of(504, "prefill", "prefill", "timeout")));
      assertThat(http.readResponse().status()).isEqualTo(504);
    }
  }

  @Test
  void callbacksDuringSubmit_areReplayedWithTheRequestId() throws Exception {
    service.script(
        call -> {
          call.sink.onStart(call.start());
          call.sink.onEvent(Events.completionToken("now"));
          call.sink.onComplete();
        });

    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", COMPLETION);
      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.headers()).containsEntry("x-request-id", "rid-1");
      assertThat(response.sseData()).hasSize(2).last().isEqualTo("[DONE]");
    }
  }

  @Test
  void doneBeforeAnyStart_isA502() throws Exception {
    service.script(call -> call.after(1, call.sink::onComplete));

    var response = post("/v1/completions", COMPLETION);

    assertThat(response.statusCode()).isEqualTo(502);
    assertThat(json(response.body()).at("/error/message").asText())
        .isEqualTo("stream ended with [DONE] before any token arrived");
  }

  private static boolean readsNothing(RawHttpConnection http) throws Exception {
    try {
      http.socket.getInputStream().read();
      return false;
    } catch (java.net.SocketTimeoutException expected) {
      return true;
    }
  }
}
