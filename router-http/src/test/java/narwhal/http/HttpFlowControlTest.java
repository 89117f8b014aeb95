package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import narwhal.api.RouterError;
import narwhal.testing.ScriptedCompletionService.Call;
import org.junit.jupiter.api.Test;

/** Client disconnects cancel; a client that stops reading holds the stream back. */
class HttpFlowControlTest extends FrontEndTestSupport {

  private static final String STREAM = "{\"prompt\":\"x\",\"stream\":true}";

  /** Emits a token every 5 ms until the request is cancelled. */
  private static void endlessTokens(Call call) {
    call.after(1, () -> call.sink.onStart(call.start()));
    Runnable[] tick = new Runnable[1];
    tick[0] =
        () -> {
          if (call.handle.cancels.get() == 0) {
            call.sink.onEvent(Events.completionToken("tok"));
            call.after(5, tick[0]);
          }
        };
    call.after(2, tick[0]);
  }

  @Test
  void disconnectMidStream_cancelsExactlyOnce() throws Exception {
    service.script(HttpFlowControlTest::endlessTokens);
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", STREAM);
      assertThat(http.readHead().status()).isEqualTo(200);
      assertThat(http.readChunk()).isNotNull();
    }
    Call call = service.nextCall();

    await("the request to be cancelled", () -> call.handle.cancels.get() > 0);
    await("the connection closed", () -> frontEnd.openConnections() == 0);
    drainLoop(call);
    assertThat(call.handle.cancels.get()).isEqualTo(1);
  }

  @Test
  void disconnectWhileNonStreamingIsInFlight_cancelsOnce() throws Exception {
    service.script(call -> {});
    Call call;
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", "{\"prompt\":\"x\"}");
      call = service.nextCall();
    }

    await("the request to be cancelled", () -> call.handle.cancels.get() > 0);
    // A late outcome after the disconnect is ignored, and does not cancel again.
    call.loop.execute(() -> call.sink.onError(RouterError.of(502, "decode", "decode", "late")));
    drainLoop(call); // the late outcome has been handled
    assertThat(call.handle.cancels.get()).isEqualTo(1);
  }

  @Test
  void disconnectAfterTheResponse_doesNotCancel() throws Exception {
    service.script(call -> call.stream(Events.completionFinal("done", "stop", "null")));
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", STREAM);
      assertThat(http.readResponse().sseData()).last().isEqualTo("[DONE]");
    }
    Call call = service.nextCall();
    // The server has seen the disconnect, and whatever it queued on the loop for it has run.
    await("the connection closed", () -> frontEnd.openConnections() == 0);
    drainLoop(call);

    assertThat(call.handle.cancels.get()).isZero();
  }

  @Test
  void slowReader_makesTheSinkUnwritable_andDrainingCallsClientWritable() throws Exception {
    String big = "z".repeat(16 * 1024);
    AtomicBoolean sawUnwritable = new AtomicBoolean();
    AtomicInteger emitted = new AtomicInteger();
    service.script(
        call -> {
          Runnable[] pump = new Runnable[1];
          pump[0] =
              () -> {
                // Like the core: produce while the client can take it, then wait to be told.
                while (call.sink.isWritable()) {
                  if (sawUnwritable.get() && call.handle.writableCalls.get() > 0) {
                    call.sink.onEvent(Events.completionToken("tail"));
                    emitted.incrementAndGet();
                    call.sink.onComplete();
                    return;
                  }
                  call.sink.onEvent(Events.completionToken(big));
                  emitted.incrementAndGet();
                  if (emitted.get() > 4096) {
                    call.sink.onError(RouterError.of(500, "test", null, "never blocked"));
                    return;
                  }
                }
                sawUnwritable.set(true);
              };
          call.handle.onWritable = () -> call.loop.execute(pump[0]);
          call.after(1, () -> {
            call.sink.onStart(call.start());
            pump[0].run();
          });
        });

    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port(), 4096)) {
      http.post("/v1/completions", STREAM);
      await("the sink to report the client unwritable", sawUnwritable::get);
      Call call = service.nextCall();
      assertThat(call.handle.writableCalls.get()).isZero();

      RawHttpConnection.Response response = http.readResponse();

      assertThat(call.handle.writableCalls.get()).isGreaterThanOrEqualTo(1);
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.sseData()).hasSize(emitted.get() + 1).last().isEqualTo("[DONE]");
    }
  }
}
