package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.api.FailureClass;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/**
 * The silence bound after the first token ({@code engine.decode_read_timeout_s}), to the
 * millisecond: any transport chunk resets it, including bytes that complete no SSE event (a
 * keep-alive comment), and it is one lazily re-armed timer rather than one reschedule per chunk.
 */
class EngineClientDecodeSilenceBoundTest {

  private final LegFixture f = new LegFixture();

  /** A decode with a 2.5 s first-token budget and a 3 s silence bound, head already received. */
  private Call streaming() {
    f.decode(LegFixture.decodeLimits(2500, 3000));
    return f.transport.last().sse();
  }

  @Test
  void commentLineAfterFirstToken_resetsTheBound() {
    Call call = streaming();
    call.event(OpenAiWire.completionToken("a"));
    f.loop.advanceMillis(2000);
    call.chunkWithoutEvent(); // ": keep-alive"

    f.loop.advanceMillis(2999);
    assertThat(f.listener.quiet()).isTrue();
    assertThat(call.cancelled()).isFalse();

    f.loop.advanceMillis(1);
    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(504);
    assertThat(failure.failureClass()).isEqualTo(FailureClass.STREAM);
    assertThat(failure.getMessage())
        .startsWith("engine went silent between tokens: decode engine d1 sent nothing for 3 s after 1 token");
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void firesExactlyAtLastChunkPlusBound_whateverKindTheChunksWere() {
    Call call = streaming();
    call.event(OpenAiWire.completionToken("a")); // t = 0
    f.loop.advanceMillis(1000);
    call.event(OpenAiWire.completionToken("b")); // t = 1000
    f.loop.advanceMillis(1500);
    call.chunkWithoutEvent(); // t = 2500
    f.loop.advanceMillis(1500);
    call.event(OpenAiWire.usage(1, 2)); // t = 4000, metadata
    f.loop.advanceMillis(1500);
    call.chunkWithoutEvent(); // t = 5500: the last sign of life

    f.loop.advanceMillis(2999); // t = 8499
    assertThat(f.listener.quiet()).isTrue();

    f.loop.advanceMillis(1); // t = 8500
    assertThat(f.listener.failure().getMessage()).startsWith("engine went silent between tokens")
        .contains("after 2 tokens");
    assertThat(call.cancelled()).isTrue();
    assertThat(f.loop.pendingTasks()).isZero();
  }

  @Test
  void chunksOnlyRecordTheTime_theOneTimerReArmsForWhatIsLeft() {
    Call call = streaming();
    call.event(OpenAiWire.completionToken("a"));
    assertThat(f.loop.pendingDelaysMillis()).containsExactly(3000L);

    f.loop.advanceMillis(1000);
    call.event(OpenAiWire.completionToken("b"));
    call.chunkWithoutEvent();
    // Still the timer armed at the first token: nothing was cancelled or rescheduled.
    assertThat(f.loop.pendingDelaysMillis()).containsExactly(2000L);

    f.loop.advanceMillis(2000);
    // It fired 2 s after the last chunk, found 1 s of the bound left and re-armed for that.
    assertThat(f.listener.quiet()).isTrue();
    assertThat(f.loop.pendingDelaysMillis()).containsExactly(1000L);
  }

  @Test
  void commentLineBeforeFirstToken_doesNotStopTheFirstTokenTimer() {
    Call call = streaming();
    f.loop.advanceMillis(1000);
    call.chunkWithoutEvent();
    f.loop.advanceMillis(1000);
    call.chunkWithoutEvent();

    f.loop.advanceMillis(499);
    assertThat(f.listener.quiet()).isTrue();

    f.loop.advanceMillis(1); // 2.5 s after the leg started
    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(504);
    assertThat(failure.getMessage()).startsWith("no first token within 2.5 s");
    // A comment is not metadata: the engine showed no sign of generating, so a broken stream.
    assertThat(failure.failureClass()).isEqualTo(FailureClass.STREAM);
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void readTimeoutZero_chunksArmNothing_onlyTheRequestDeadlineBoundsTheStream() {
    f.decode(LegFixture.decodeLimits(2500, 0));
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.completionToken("a"));
    call.chunkWithoutEvent();
    call.event(OpenAiWire.usage(1, 1));

    assertThat(f.loop.pendingTasks()).isZero();
    f.loop.advanceMillis(3_600_000);

    assertThat(f.listener.quiet()).isTrue();
    assertThat(call.cancelled()).isFalse();
  }
}
