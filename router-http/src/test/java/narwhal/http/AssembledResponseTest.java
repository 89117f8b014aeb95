package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.api.RouterError;
import narwhal.http.Events.Route;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedCompletionService.Call;
import org.junit.jupiter.api.Test;

/** {@code "stream": false}: responses assembled from the relayed events. */
class AssembledResponseTest extends FrontEndTestSupport {

  @Override
  HttpFrontEndOptions options() {
    return new HttpFrontEndOptions("127.0.0.1", 0, 4096, 1000);
  }

  @Test
  void completions_concatenatesText_takesLastFinish_usesEngineUsage() throws Exception {
    service.script(
        call ->
            call.stream(
                Events.completionToken("Hel"),
                Events.completionToken("lo"),
                Events.completionFinal("!", "stop", "\"END\""),
                Events.usageChunk(Route.COMPLETIONS, 5, 3)));

    var response = post("/v1/completions", "{\"prompt\":\"Say\",\"max_tokens\":3}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(response.headers().firstValue("x-request-id")).hasValue("rid-1");
    assertThat(json(response.body()))
        .isEqualTo(
            json(
                "{\"id\":\"cmpl-rid-1\",\"object\":\"text_completion\",\"created\":1700000000,"
                    + "\"model\":\"served-model\",\"choices\":[{\"index\":0,\"text\":\"Hello!\","
                    + "\"logprobs\":null,\"finish_reason\":\"stop\",\"stop_reason\":\"END\"}],"
                    + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3,\"total_tokens\":8,"
                    + "\"prompt_tokens_details\":{\"cached_tokens\":4}}}"));
  }

  @Test
  void chat_text_withComputedUsage() throws Exception {
    service.script(
        call ->
            call.stream(
                Events.chatRole(),
                Events.chatToken("Hi"),
                Events.chatToken(" there"),
                Events.chatDelta("", "{\"content\":\"\"}", "length")));

    var response =
        post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"yo\"}]}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response.body()))
        .isEqualTo(
            json(
                "{\"id\":\"chatcmpl-rid-1\",\"object\":\"chat.completion\","
                    + "\"created\":1700000000,\"model\":\"served-model\",\"choices\":[{\"index\":0,"
                    + "\"message\":{\"role\":\"assistant\",\"content\":\"Hi there\"},"
                    + "\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}],"
                    + "\"usage\":{\"prompt_tokens\":0,\"completion_tokens\":3,\"total_tokens\":3}}"));
  }

  @Test
  void chat_toolCalls_mergePerIndex_contentNull() throws Exception {
    service.script(
        call ->
            call.stream(
                Events.chatRole(),
                Events.chatDelta(
                    "",
                    "{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}",
                    null),
                Events.chatDelta(
                    "",
                    "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\":\"}}]}",
                    null),
                Events.chatDelta(
                    "",
                    "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Oslo\\\"}\"}}]}",
                    "tool_calls")));

    var response =
        post(
            "/v1/chat/completions",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"weather?\"}],"
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}]}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response.body()).at("/choices/0"))
        .isEqualTo(
            json(
                "{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
                    + "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":"
                    + "{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\"}}]},"
                    + "\"logprobs\":null,\"finish_reason\":\"tool_calls\",\"stop_reason\":null}"));
  }

  @Test
  void toolCallWithoutId_is502Decode() throws Exception {
    service.script(
        call ->
            call.stream(
                Events.chatDelta(
                    "", "{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\"}}]}", "stop")));

    var response =
        post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");

    assertThat(response.statusCode()).isEqualTo(502);
    assertThat(json(response.body()).at("/error/type").asText()).isEqualTo("decode");
    assertThat(json(response.body()).at("/error/message").asText()).contains("has no id");
  }

  @Test
  void responseOverTheLimit_is502Decode_andAbortsTheRequest() throws Exception {
    String hundred = "x".repeat(100);
    StreamEvent[] many = new StreamEvent[12];
    for (int i = 0; i < many.length; i++) {
      many[i] = Events.completionToken(hundred);
    }
    service.script(call -> call.stream(many));

    var response = post("/v1/completions", "{\"prompt\":\"long\"}");

    assertThat(response.statusCode()).isEqualTo(502);
    assertThat(json(response.body()))
        .isEqualTo(
            json(
                "{\"error\":{\"message\":\"Upstream response could not be assembled: response "
                    + "exceeds the limit of 1000 bytes (serving.max_response_bytes)\","
                    + "\"type\":\"decode\",\"param\":null,\"code\":\"decode\"}}"));
    Call call = service.nextCall();
    // Aborted before the client was answered: the journal says failed (response_limit), not cancelled.
    assertThat(call.handle.aborts).containsExactly("response_limit: " + json(response.body()).at("/error/message").asText());
    // The connection still serves the next request.
    assertThat(get("/health").statusCode()).isEqualTo(200);
    assertThat(call.handle.cancels.get()).isZero();
  }

  @Test
  void responseOverTheLimit_freesItsSeatBeforeAnswering_soAPipelinedRequestIsAdmitted() throws Exception {
    // One seat: the request pipelined behind the oversized one is read as soon as the 502 is
    // written, and must find the seat already free rather than get a 429.
    service.seats(1);
    String hundred = "x".repeat(100);
    service.script(call -> {
      if (call.request.getPrompt().getText().equals("long")) {
        StreamEvent[] many = new StreamEvent[12];
        java.util.Arrays.fill(many, Events.completionToken(hundred));
        call.stream(many);
      } else {
        call.stream(Events.completionFinal("ok", "stop", "null"));
      }
    });
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", "{\"prompt\":\"long\"}");
      http.post("/v1/completions", "{\"prompt\":\"short\"}");

      assertThat(http.readResponse().status()).isEqualTo(502);
      assertThat(http.readResponse().status()).isEqualTo(200);
    }
  }

  @Test
  void finalResponseOverTheLimit_is502Decode() throws Exception {
    // 900 characters fit the running bound; the JSON around them does not.
    service.script(call -> call.stream(Events.completionToken("y".repeat(900))));

    var response = post("/v1/completions", "{\"prompt\":\"long\"}");

    assertThat(response.statusCode()).isEqualTo(502);
    assertThat(json(response.body()).at("/error/message").asText()).contains("1000 bytes");
  }

  @Test
  void errorAtAnyPoint_isThePlainStatusWithTheEnvelope() throws Exception {
    service.script(
        call ->
            call.sequence(
                1,
                () -> call.sink.onStart(call.start()),
                () -> call.sink.onEvent(Events.completionToken("a")),
                () ->
                    call.sink.onError(
                        RouterError.of(504, "decode", "decode", "engine went silent between tokens"))));

    var response = post("/v1/completions", "{\"prompt\":\"x\"}");

    assertThat(response.statusCode()).isEqualTo(504);
    assertThat(response.headers().firstValue("x-request-id")).hasValue("rid-1");
    assertThat(json(response.body()))
        .isEqualTo(
            json(
                "{\"error\":{\"message\":\"engine went silent between tokens\","
                    + "\"type\":\"decode\",\"param\":null,\"code\":\"decode\"}}"));
  }
}
