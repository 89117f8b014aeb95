package narwhal.grpc;

import static narwhal.testing.ScriptedCompletionService.token;
import static narwhal.grpc.StreamCompletionTest.completion;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Deadline;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import narwhal.api.RouterError;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The client's deadline reaches the core; cancelling the call cancels the request, once. */
class DeadlineAndCancellationTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final InProcessRouter router = new InProcessRouter(cleanup);

  private Deadline in(long millis) {
    return Deadline.after(millis, TimeUnit.MILLISECONDS, router.clock.ticker);
  }

  @Test
  void clientDeadline_isTheDeadlineTheCoreReceives() {
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).withDeadline(in(2_000)).streamCompletion(completion("hi"), r);
    router.clock.runPending();

    ScriptedCompletionService.Call call = router.service.onlyCall();
    assertThat(call.deadlineNanos).isNotNull();
    assertThat(call.deadlineNanos - call.arrivalNanos).isEqualTo(TimeUnit.SECONDS.toNanos(2));
  }

  @Test
  void noClientDeadline_leavesTheCoresOwnTimeout() {
    InProcessRouter.Recorder<Completion> r = new InProcessRouter.Recorder<>();
    router.stub(r).complete(completion("hi"), r);
    router.clock.runPending();

    assertThat(router.service.onlyCall().deadlineNanos).isNull();
  }

  @Test
  void theCoresDeadlineError_isDeadlineExceeded_withItsMessage() {
    router.service.script(call -> call.after(1_499, () -> call.sink.onError(RouterError.of(504, "request_expired",
        "request_expired", "request deadline of 1.5 s (the client's deadline) passed before the first token"))));
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).withDeadline(in(1_500)).streamCompletion(completion("hi"), r);

    router.clock.advanceMillis(1_499);

    assertThat(r.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(r.status.getDescription()).contains("the client's deadline");
    assertThat(router.service.onlyCall().handle.cancels.get()).isZero();
  }

  @Test
  void deadlinePassingUnanswered_cancelsTheRequestOnce_afterTheCoreHadItsTurn() {
    router.service.script(call -> {
      call.after(1, () -> call.sink.onStart(call.start()));
      call.after(2, () -> call.deliver(token("a")));
      // then silence: the engine stalls
    });
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).withDeadline(in(2_000)).streamCompletion(completion("hi"), r);

    router.clock.advanceMillis(1_999);
    assertThat(r.status).isNull();
    assertThat(router.service.onlyCall().handle.cancels.get()).isZero();

    router.clock.advanceMillis(1);
    assertThat(r.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(r.messages).hasSize(1);
    assertThat(router.service.onlyCall().handle.cancels.get()).isEqualTo(1);
  }

  @Test
  void clientCancelMidStream_cancelsTheRequestOnce_andLaterOutputIsDropped() {
    router.service.script(call -> {
      call.after(1, () -> call.sink.onStart(call.start()));
      call.after(2, () -> call.deliver(token("a")));
    });
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).streamCompletion(completion("hi"), r);
    router.clock.advanceMillis(2);

    r.cancel();
    router.clock.runPending();
    ScriptedCompletionService.Call call = router.service.onlyCall();
    call.sink.onEvent(token("late"));
    call.sink.onError(RouterError.of(502, "decode", "decode", "late"));

    assertThat(call.handle.cancels.get()).isEqualTo(1);
    assertThat(r.status.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(r.messages).hasSize(1);
    assertThat(router.openCalls.size()).isZero();
  }

  @Test
  void clientCancelWhileWaitingForTheAnswer_cancelsTheRequest() {
    InProcessRouter.Recorder<Completion> r = new InProcessRouter.Recorder<>();
    router.stub(r).complete(completion("hi"), r);
    router.clock.runPending();

    r.cancel();
    router.clock.runPending();

    assertThat(router.service.onlyCall().handle.cancels.get()).isEqualTo(1);
    assertThat(router.openCalls.size()).isZero();
  }

  @Test
  void shuttingDown_endsOpenCallsUnavailable_andCancelsTheirRequests() {
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).streamCompletion(completion("hi"), r);
    router.clock.runPending();

    router.openCalls.shutDownAll();

    assertThat(r.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(r.status.getDescription()).isEqualTo("the router is shutting down: retry the request");
    assertThat(router.service.onlyCall().handle.cancels.get()).isEqualTo(1);
    assertThat(router.openCalls.size()).isZero();
  }
}
