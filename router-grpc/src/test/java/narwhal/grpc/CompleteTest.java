package narwhal.grpc;

import static narwhal.testing.ScriptedCompletionService.finish;
import static narwhal.testing.ScriptedCompletionService.role;
import static narwhal.testing.ScriptedCompletionService.token;
import static narwhal.grpc.StreamCompletionTest.completion;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import narwhal.api.RouterError;
import narwhal.proto.v1.ChatMessage;
import narwhal.proto.v1.ChatMessages;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.ListModelsRequest;
import narwhal.proto.v1.ListModelsResponse;
import narwhal.proto.v1.Route;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Complete (the assembled answer) and ListModels. */
class CompleteTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private InProcessRouter router = new InProcessRouter(cleanup);

  private InProcessRouter.Recorder<Completion> complete(CompletionRequest request) {
    InProcessRouter.Recorder<Completion> recorder = new InProcessRouter.Recorder<>();
    router.stub(recorder).complete(request, recorder);
    return recorder;
  }

  @Test
  void complete_assemblesTheTokensWithTheEnginesUsage() {
    router.service.script(call -> call.stream(token("Hel"), token("lo"), finish("length", 4, 2)));

    InProcessRouter.Recorder<Completion> r = complete(completion("hi"));
    router.clock.advanceMillis(10);

    assertThat(r.status).isEqualTo(Status.OK);
    Completion c = r.messages.get(0);
    assertThat(c.getId()).isEqualTo("cmpl-rid-1");
    assertThat(c.getText()).isEqualTo("Hello");
    assertThat(c.getFinishReason()).isEqualTo("length");
    assertThat(c.getUsage().getPromptTokens()).isEqualTo(4);
    assertThat(c.getUsage().getTotalTokens()).isEqualTo(6);
    assertThat(c.getModel()).isEqualTo(ScriptedCompletionService.MODEL);
    assertThat(c.getCreated()).isEqualTo(ScriptedCompletionService.CREATED);
    assertThat(c.getRoute()).isEqualTo(Route.ROUTE_COMPLETIONS);
    assertThat(c.getRole()).isEmpty();
    assertThat(r.header(GrpcErrors.REQUEST_ID)).isEqualTo("rid-1");
    assertThat(router.service.onlyCall().request.getStream()).isFalse();
  }

  @Test
  void complete_chat_hasTheAssistantRole_andCountsTokensWithoutEngineUsage() {
    router.service.script(call -> call.stream(role("assistant"), token("A"), token("B"), token("C")));
    CompletionRequest chat = CompletionRequest.newBuilder()
        .setRoute(Route.ROUTE_CHAT_COMPLETIONS)
        .setChat(ChatMessages.newBuilder().addMessages(ChatMessage.newBuilder().setRole("user").setText("hi")))
        .build();

    InProcessRouter.Recorder<Completion> r = complete(chat);
    router.clock.advanceMillis(10);

    Completion c = r.messages.get(0);
    assertThat(c.getId()).isEqualTo("chatcmpl-rid-1");
    assertThat(c.getRole()).isEqualTo("assistant");
    assertThat(c.getText()).isEqualTo("ABC");
    assertThat(c.getUsage().getCompletionTokens()).isEqualTo(3);
    assertThat(c.getUsage().getPromptTokens()).isZero();
  }

  @Test
  void complete_anyFailure_isAPlainStatus() {
    router.service.script(call -> {
      call.after(1, () -> call.sink.onStart(call.start()));
      call.after(2, () -> call.sink.onEvent(token("partial")));
      call.after(3, () -> call.sink.onError(RouterError.of(502, "decode", "decode", "decode stream closed before [DONE]")));
    });

    InProcessRouter.Recorder<Completion> r = complete(completion("hi"));
    router.clock.advanceMillis(5);

    assertThat(r.messages).isEmpty();
    assertThat(r.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(r.status.getDescription()).isEqualTo("decode stream closed before [DONE]");
  }

  @Test
  void complete_overTheResponseLimit_abortsTheRequest_andNamesTheLimit() {
    router = new InProcessRouter(cleanup, new GrpcFrontEndOptions("in-process", 0, 1 << 20, 8));
    router.service.script(call -> call.stream(token("12345"), token("67890"), token("never")));

    InProcessRouter.Recorder<Completion> r = complete(completion("hi"));
    router.clock.advanceMillis(10);

    assertThat(r.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(r.status.getDescription()).isEqualTo(
        "Upstream response could not be assembled: response exceeds the limit of 8 bytes (serving.max_response_bytes)");
    assertThat(router.service.onlyCall().handle.aborts).containsExactly("response_limit: " + r.status.getDescription());
    assertThat(router.service.onlyCall().handle.cancels.get()).isZero();
  }

  @Test
  void complete_nonAsciiOutput_isCountedInUtf8Bytes() {
    // Five characters, ten bytes: over an 8-byte limit though a character count would pass it.
    router = new InProcessRouter(cleanup, new GrpcFrontEndOptions("in-process", 0, 1 << 20, 8));
    router.service.script(call -> call.stream(token("éé"), token("éé"), token("é")));

    InProcessRouter.Recorder<Completion> r = complete(completion("hi"));
    router.clock.advanceMillis(10);

    assertThat(r.messages).isEmpty();
    assertThat(r.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(router.service.onlyCall().handle.aborts).containsExactly(
        "response_limit: Upstream response could not be assembled: response exceeds the limit of 8 bytes"
            + " (serving.max_response_bytes)");
  }

  @Test
  void complete_finishedMessageOverTheLimit_isNotSent_andAbortsAsTheResponseLimit() {
    // The text fits; the message around it (id, model, usage) does not, as with HTTP's JSON body.
    router = new InProcessRouter(cleanup, new GrpcFrontEndOptions("in-process", 0, 1 << 20, 40));
    router.service.script(call -> call.stream(token("x".repeat(30))));

    InProcessRouter.Recorder<Completion> r = complete(completion("hi"));
    router.clock.advanceMillis(10);

    assertThat(r.messages).isEmpty();
    assertThat(r.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(r.status.getDescription()).endsWith("exceeds the limit of 40 bytes (serving.max_response_bytes)");
    assertThat(router.service.onlyCall().handle.aborts).singleElement().asString().startsWith("response_limit: ");
  }

  @Test
  void listModels_namesTheServedModel() {
    ListModelsResponse models = io.grpc.stub.ClientCalls.blockingUnaryCall(router.channel,
        narwhal.grpc.v1.RouterGrpc.getListModelsMethod(), io.grpc.CallOptions.DEFAULT,
        ListModelsRequest.getDefaultInstance());

    assertThat(models.getModelsList()).singleElement().satisfies(m -> {
      assertThat(m.getId()).isEqualTo(ScriptedCompletionService.MODEL);
      assertThat(m.getOwnedBy()).isEqualTo("narwhal");
      assertThat(m.getCreated()).isEqualTo(ScriptedCompletionService.CREATED);
    });
  }
}
