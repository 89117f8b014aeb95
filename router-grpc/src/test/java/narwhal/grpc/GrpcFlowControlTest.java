package narwhal.grpc;

import static narwhal.testing.ScriptedCompletionService.token;
import static narwhal.grpc.StreamCompletionTest.completion;
import static org.assertj.core.api.Assertions.assertThat;

import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A client that stops reading holds the core back; reading again resumes it. */
class GrpcFlowControlTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final InProcessRouter router = new InProcessRouter(cleanup);

  @Test
  void notReadyClient_isNotWritable_untilItAsksForMore() {
    router.service.script(call -> {
      call.after(1, () -> call.sink.onStart(call.start()));
      call.after(2, () -> call.deliver(token("a")));
      call.after(3, () -> call.deliver(token("b")));
    });
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>(1);
    router.stub(r).streamCompletion(completion("hi"), r);

    router.clock.advanceMillis(2);
    ScriptedCompletionService.Call call = router.service.onlyCall();
    assertThat(call.writableAfterEvents).containsExactly(false);
    assertThat(call.handle.writableCalls.get()).isZero();

    r.request(5);
    router.clock.runPending();
    assertThat(call.handle.writableCalls.get()).isEqualTo(1);

    router.clock.advanceMillis(1);
    assertThat(call.writableAfterEvents).containsExactly(false, true);
    assertThat(r.messages).extracting(e -> e.getToken().getText()).containsExactly("a", "b");
  }

  @Test
  void readyClient_staysWritable() {
    router.service.script(call -> call.stream(token("a"), token("b"), token("c")));
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).streamCompletion(completion("hi"), r);

    router.clock.advanceMillis(10);

    assertThat(router.service.onlyCall().writableAfterEvents).containsExactly(true, true, true);
  }
}
