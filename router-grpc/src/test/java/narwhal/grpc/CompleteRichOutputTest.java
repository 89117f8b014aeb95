package narwhal.grpc;

import static narwhal.testing.ScriptedCompletionService.finish;
import static narwhal.testing.ScriptedCompletionService.role;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import narwhal.proto.v1.ChatMessage;
import narwhal.proto.v1.ChatMessages;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.proto.v1.ToolCall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Complete carries what the HTTP front-end's non-streaming answer carries beyond the text: tool
 * calls, reasoning, refusal, logprobs and the stop reason, assembled by the same assembler.
 */
class CompleteRichOutputTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final InProcessRouter router = new InProcessRouter(cleanup);

  private static final CompletionRequest CHAT = CompletionRequest.newBuilder()
      .setRoute(Route.ROUTE_CHAT_COMPLETIONS)
      .setChat(ChatMessages.newBuilder().addMessages(ChatMessage.newBuilder().setRole("user").setText("hi")))
      .build();

  private Completion complete(CompletionRequest request, StreamEvent... events) {
    router.service.script(call -> call.stream(events));
    InProcessRouter.Recorder<Completion> recorder = new InProcessRouter.Recorder<>();
    router.stub(recorder).complete(request, recorder);
    router.clock.advanceMillis(20);
    assertThat(recorder.status).isEqualTo(Status.OK);
    return recorder.messages.get(0);
  }

  /** A token whose engine chunk carries {@code delta} (chat) and, if not null, {@code logprobs}. */
  private static StreamEvent chunk(String text, String delta, String logprobs) {
    String json = "{\"choices\":[{\"index\":0,\"delta\":" + delta
        + (logprobs == null ? "" : ",\"logprobs\":" + logprobs) + "}]}";
    return StreamEvent.newBuilder().setToken(TokenDelta.newBuilder().setText(text).setChunkJson(json)).build();
  }

  @Test
  void toolCalls_mergePerIndex_likeHttpsMessageToolCalls() {
    Completion c = complete(CHAT,
        role("assistant"),
        chunk("", "{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
            + "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"ci\"}}]}", null),
        chunk("", "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\":\\\"Oslo\\\"}\"}},"
            + "{\"index\":1,\"id\":\"call_2\",\"function\":{\"name\":\"now\",\"arguments\":\"{}\"}}]}", null),
        finish("tool_calls", 5, 2));

    assertThat(c.getToolCallsList()).extracting(ToolCall::getId).containsExactly("call_1", "call_2");
    assertThat(c.getToolCalls(0).getType()).isEqualTo("function");
    assertThat(c.getToolCalls(0).getFunction().getName()).isEqualTo("get_weather");
    assertThat(c.getToolCalls(0).getFunction().getArguments()).isEqualTo("{\"city\":\"Oslo\"}");
    assertThat(c.getToolCalls(1).getFunction().getName()).isEqualTo("now");
    assertThat(c.getText()).isEmpty();
    assertThat(c.getFinishReason()).isEqualTo("tool_calls");
  }

  @Test
  void reasoningAndRefusal_concatenate() {
    Completion c = complete(CHAT,
        chunk("", "{\"reasoning_content\":\"think \"}", null),
        chunk("", "{\"reasoning_content\":\"hard\"}", null),
        chunk("no", "{\"content\":\"no\",\"refusal\":\"I can't\"}", null));

    assertThat(c.getReasoning()).isEqualTo("think hard");
    assertThat(c.getRefusal()).isEqualTo("I can't");
    assertThat(c.getText()).isEqualTo("no");
  }

  @Test
  void reasoningUnderItsNewerName_isTheReasoning() {
    Completion c = complete(CHAT, chunk("", "{\"reasoning\":\"hmm\"}", null), chunk("ok", "{\"content\":\"ok\"}", null));

    assertThat(c.getReasoning()).isEqualTo("hmm");
  }

  @Test
  void logprobs_concatenateAcrossChunks_asJson() {
    Completion c = complete(CHAT,
        chunk("A", "{\"content\":\"A\"}", "{\"content\":[{\"token\":\"A\",\"logprob\":-0.5}]}"),
        chunk("B", "{\"content\":\"B\"}", "{\"content\":[{\"token\":\"B\",\"logprob\":-1.5}]}"));

    assertThat(c.getLogprobsJson())
        .isEqualTo("{\"content\":[{\"token\":\"A\",\"logprob\":-0.5},{\"token\":\"B\",\"logprob\":-1.5}]}");
  }

  @Test
  void stopReason_isTheLastOneSet() {
    StreamEvent stop = StreamEvent.newBuilder()
        .setMetadata(MetadataChunk.newBuilder().setFinishReason("stop").setStopReasonJson("42")).build();
    Completion c = complete(StreamCompletionTest.completion("hi"),
        StreamEvent.newBuilder().setToken(TokenDelta.newBuilder().setText("x")).build(), stop);

    assertThat(c.getStopReasonJson()).isEqualTo("42");
  }

  @Test
  void plainAnswer_hasNoneOfTheExtras() {
    Completion c = complete(CHAT, chunk("hi", "{\"content\":\"hi\"}", null));

    assertThat(c.getToolCallsList()).isEmpty();
    assertThat(c.getReasoning()).isEmpty();
    assertThat(c.getRefusal()).isEmpty();
    assertThat(c.getLogprobsJson()).isEmpty();
    assertThat(c.getStopReasonJson()).isEmpty();
  }

  @Test
  void aToolCallWithoutAnId_isRefusedAsHttpRefusesIt() {
    router.service.script(call -> call.stream(
        chunk("", "{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}", null)));
    InProcessRouter.Recorder<Completion> r = new InProcessRouter.Recorder<>();
    router.stub(r).complete(CHAT, r);
    router.clock.advanceMillis(20);

    assertThat(r.messages).isEmpty();
    assertThat(r.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(r.status.getDescription()).endsWith("tool call 0 has no id");
    assertThat(router.service.onlyCall().handle.aborts).singleElement().asString().startsWith("invalid_response: ");
  }
}
