package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.spi.TransportFailure;
import narwhal.core.request.RouterFixture.Client;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialectWire;
import org.junit.jupiter.api.Test;

/** The client side: going away, reading slowly, and a failure after output of a non-streaming request. */
class RouterCancelAndBackpressureTest {

  private final RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(3)));

  @Test
  void cancel_midPrefill_cancelsExchangeReleasesAndJournalsCancelled() {
    Client c = r.submitCompletion();
    r.loop.advanceMillis(100);

    c.handle().cancel();
    r.call(0).respond(200, TestDialectWire.prefillResponseFrom("engine-p1"));
    r.loop.advanceMillis(700_000);

    assertThat(r.call(0).cancelled()).isTrue();
    assertThat(r.transport.calls()).hasSize(1);
    assertThat(c.sink().log).isEmpty();
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.row()).containsEntry("terminal", "cancelled").containsEntry("cancelled_phase", "prefill")
        .containsEntry("status", null);
    assertThat(r.loop.pendingTasks()).isZero();
  }

  @Test
  void cancel_midStream_cancelsDecodeAndNoSinkCallFollows() {
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    Call decode = r.call(1).sse().event(OpenAiWire.completionToken("a"));

    c.handle().cancel();
    decode.event(OpenAiWire.completionToken("b")).event("[DONE]").end();
    r.loop.advanceMillis(700_000);

    assertThat(decode.cancelled()).isTrue();
    assertThat(c.sink().log).containsExactly("start", "token:a");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.residentDecode()).isZero();
    assertThat(r.row()).containsEntry("terminal", "cancelled").containsEntry("cancelled_phase", "decode");
    assertThat(r.transport.calls()).hasSize(2);
  }

  @Test
  void cancel_twice_journalsOnce() {
    Client c = r.submitCompletion();

    c.handle().cancel();
    c.handle().cancel();

    assertThat(r.journal.rows).hasSize(1);
  }

  @Test
  void backpressure_clientNotWritable_pausesDecode_clientWritableResumes() {
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    Call decode = r.call(1).sse();
    c.sink().writable = false;

    decode.event(OpenAiWire.completionToken("a"));
    assertThat(decode.paused()).isTrue();
    assertThat(c.sink().log).containsExactly("start", "token:a");

    c.sink().writable = true;
    c.handle().clientWritable();
    assertThat(decode.paused()).isFalse();

    decode.event(OpenAiWire.completionToken("b")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "token:b", "complete");
  }

  @Test
  void backpressure_pausedForLongerThanReadTimeout_isNotEngineSilence() {
    RouterFixture slow = new RouterFixture(RouterFixture.twoByTwo());
    Client c = slow.submitCompletion();
    slow.prefillOk(slow.call(0));
    Call decode = slow.call(1).sse();
    c.sink().writable = false;
    decode.event(OpenAiWire.completionToken("a"));

    slow.loop.advanceMillis(120_000);
    assertThat(c.sink().log).containsExactly("start", "token:a");

    c.sink().writable = true;
    c.handle().clientWritable();
    decode.event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
  }

  @Test
  void failureAfterOutput_nonStreamingClient_stillEndsWithOnError() {
    Client c = r.submit(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hello\"}"));
    r.prefillOk(r.call(0));
    r.call(1).sse().event(OpenAiWire.completionToken("a"));

    r.call(1).fail(TransportFailure.Kind.CONNECTION_CLOSED);
    r.loop.advanceMillis(10_000);

    assertThat(c.sink().log).containsExactly("start", "token:a", "error:502:decode");
    assertThat(c.sink().error().status()).isEqualTo(502);
    assertThat(r.transport.calls()).hasSize(2);
    assertThat(r.row()).containsEntry("terminal", "failed").containsEntry("stream", false);
  }
}
