package narwhal.grpc;

import static narwhal.testing.ScriptedCompletionService.finish;
import static narwhal.testing.ScriptedCompletionService.role;
import static narwhal.testing.ScriptedCompletionService.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import narwhal.api.RouterError;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Prompt;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** StreamCompletion: relay, commit point, and the two failure shapes. */
class StreamCompletionTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final InProcessRouter router = new InProcessRouter(cleanup);

  static CompletionRequest completion(String prompt) {
    return CompletionRequest.newBuilder()
        .setRoute(Route.ROUTE_COMPLETIONS)
        .setPrompt(Prompt.newBuilder().setText(prompt))
        .setMaxTokens(8)
        .build();
  }

  private InProcessRouter.Recorder<StreamEvent> stream(CompletionRequest request) {
    InProcessRouter.Recorder<StreamEvent> recorder = new InProcessRouter.Recorder<>();
    router.stub(recorder).streamCompletion(request, recorder);
    return recorder;
  }

  @Test
  void stream_relaysEveryEventInOrder_thenDone_andOk() {
    router.service.script(call -> call.stream(role("assistant"), token("Hel"), token("lo"), finish("stop", 3, 2)));

    InProcessRouter.Recorder<StreamEvent> r = stream(completion("hi"));
    router.clock.advanceMillis(10);

    assertThat(r.status).isEqualTo(Status.OK);
    assertThat(r.messages).hasSize(5);
    assertThat(r.messages.get(0).getMetadata().getRole()).isEqualTo("assistant");
    assertThat(r.messages.get(1).getToken().getText()).isEqualTo("Hel");
    assertThat(r.messages.get(2).getToken().getText()).isEqualTo("lo");
    assertThat(r.messages.get(3).getMetadata().getFinishReason()).isEqualTo("stop");
    assertThat(r.messages.get(4).hasDone()).isTrue();
    assertThat(r.header(GrpcErrors.REQUEST_ID)).isEqualTo("rid-1");
    assertThat(r.trailer(GrpcErrors.REQUEST_ID)).isEqualTo("rid-1");
    assertThat(router.openCalls.size()).isZero();
  }

  @Test
  void stream_submitsAStreamingRequestOnTheServedModel() {
    CompletionRequest sent = completion("hi").toBuilder()
        .setStream(false)
        .putExtraFields("stream", "false")
        .putExtraFields("logprobs", "2")
        .build();
    stream(sent);
    router.clock.runPending();

    CompletionRequest submitted = router.service.onlyCall().request;
    assertThat(submitted.getStream()).isTrue();
    assertThat(submitted.getModel()).isEqualTo(ScriptedCompletionService.MODEL);
    assertThat(submitted.getExtraFieldsMap()).containsOnlyKeys("logprobs");
    assertThat(submitted.getPrompt().getText()).isEqualTo("hi");
  }

  @Test
  void failureBeforeTheFirstToken_closesWithTheMappedStatusAndNoMessage() {
    router.service.script(call -> call.after(5, () -> call.sink.onError(
        RouterError.of(502, "prefill", "prefill", "prefill engine p0 answered HTTP 500"))));

    InProcessRouter.Recorder<StreamEvent> r = stream(completion("hi"));
    router.clock.advanceMillis(10);

    assertThat(r.messages).isEmpty();
    assertThat(r.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(r.status.getDescription()).isEqualTo("prefill engine p0 answered HTTP 500");
    assertThat(r.trailer(GrpcErrors.HTTP_STATUS)).isEqualTo("502");
    assertThat(r.trailer(GrpcErrors.ERROR_TYPE)).isEqualTo("prefill");
    assertThat(r.trailer(GrpcErrors.ERROR_CODE)).isEqualTo("prefill");
    assertThat(r.trailer(GrpcErrors.REQUEST_ID)).isEqualTo("rid-1");
  }

  @Test
  void failureAfterTokens_sendsOneErrorEvent_thenClosesWithTheMappedStatus() {
    router.service.script(call -> {
      call.after(1, () -> call.sink.onStart(call.start()));
      call.after(2, () -> call.deliver(token("a")));
      call.after(3, () -> call.deliver(token("b")));
      call.after(4, () -> call.sink.onError(RouterError.of(504, "decode", "decode",
          "engine went silent between tokens for 300 ms (engine.decode_read_timeout_s)")));
    });

    InProcessRouter.Recorder<StreamEvent> r = stream(completion("hi"));
    router.clock.advanceMillis(10);

    assertThat(r.messages).hasSize(3);
    StreamEvent last = r.messages.get(2);
    assertThat(last.hasError()).isTrue();
    assertThat(last.getError().getStatus()).isEqualTo(504);
    assertThat(last.getError().getMessage()).startsWith("engine went silent between tokens");
    assertThat(last.getError().getType()).isEqualTo("decode");
    assertThat(last.getError().getCode()).isEqualTo("decode");
    assertThat(r.messages.stream().filter(StreamEvent::hasDone)).isEmpty();
    assertThat(r.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(r.status.getDescription()).startsWith("engine went silent between tokens");
    assertThat(r.trailer(GrpcErrors.HTTP_STATUS)).isEqualTo("504");
    assertThat(router.openCalls.size()).isZero();
  }

  @Test
  void completionWithoutAToken_isTheSpecs502() {
    router.service.script(call -> call.after(1, call.sink::onComplete));

    InProcessRouter.Recorder<StreamEvent> r = stream(completion("hi"));
    router.clock.advanceMillis(5);

    assertThat(r.messages).isEmpty();
    assertThat(r.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(r.status.getDescription()).isEqualTo("stream ended with [DONE] before any token arrived");
    assertThat(r.trailer(GrpcErrors.ERROR_TYPE)).isEqualTo("decode");
  }

  @Test
  void outcomeDeliveredDuringSubmit_isReplayedOnceTheHandleIsKnown() {
    router.service.script(call -> {
      call.sink.onStart(call.start());
      call.sink.onEvent(token("now"));
      call.sink.onComplete();
    });

    InProcessRouter.Recorder<StreamEvent> r = stream(completion("hi"));

    assertThat(r.status).isEqualTo(Status.OK);
    assertThat(r.messages).extracting(e -> e.getToken().getText()).first().isEqualTo("now");
    assertThat(r.header(GrpcErrors.REQUEST_ID)).isEqualTo("rid-1");
  }

  @Test
  void eventsAfterTheCallClosed_areDropped() {
    router.service.script(call -> {
      call.after(1, () -> call.sink.onError(RouterError.of(503, "backend_unavailable", null, "no engine")));
      call.after(2, () -> call.sink.onStart(call.start()));
      call.after(3, () -> call.sink.onEvent(token("late")));
    });

    InProcessRouter.Recorder<StreamEvent> r = stream(completion("hi"));
    router.clock.advanceMillis(5);

    assertThat(r.messages).isEmpty();
    assertThat(r.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(r.trailer(GrpcErrors.ERROR_CODE)).isNull();
  }
}
