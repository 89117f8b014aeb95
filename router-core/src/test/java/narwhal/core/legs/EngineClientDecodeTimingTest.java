package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import narwhal.api.FailureClass;
import narwhal.spi.Phase;
import narwhal.spi.ExchangeOptions;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/** The decode leg's first-token and silence timers, to the millisecond. */
class EngineClientDecodeTimingTest {

  private final LegFixture f = new LegFixture();

  @Test
  void firstTokenTimer_headAt2000ms_stillFiresAt2500msFromBeforeConnect() {
    f.decode();
    Call call = f.transport.last();
    f.loop.advanceMillis(2000);
    call.sse();

    f.loop.advanceMillis(499);
    assertThat(f.listener.quiet()).isTrue();
    assertThat(call.cancelled()).isFalse();

    f.loop.advanceMillis(1);
    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(504);
    assertThat(failure.phase()).isEqualTo(Phase.DECODE);
    assertThat(failure.failureClass()).isEqualTo(FailureClass.STREAM);
    assertThat(failure.reason()).isEqualTo("engine_timeout");
    assertThat(failure.isTransient()).isTrue();
    assertThat(failure.getMessage()).startsWith("no first token within 2.5 s");
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void firstTokenTimer_connectionThatNeverCompletes_spendsTheBudget_andThePendingConnectIsCancelled() {
    // The connect timeout (30 s) would end this far too late: the first-token budget must.
    f.decode(LegLimits.decode(Duration.ofMillis(2500), Duration.ofSeconds(10),
        new ExchangeOptions(Duration.ofSeconds(30), 1 << 20)));
    Call call = f.transport.last(); // never connects: no head, no bytes, no failure
    assertThat(call.options.connectTimeout()).isEqualTo(Duration.ofSeconds(30));

    f.loop.advanceMillis(2499);
    assertThat(f.listener.quiet()).isTrue();
    assertThat(call.cancelled()).isFalse();

    f.loop.advanceMillis(1);
    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(504);
    assertThat(failure.reason()).isEqualTo("engine_timeout");
    assertThat(failure.failureClass()).isEqualTo(FailureClass.STREAM);
    assertThat(failure.getMessage())
        .isEqualTo("no first token within 2.5 s from decode engine d1 (engine.first_token_timeout_s)");
    assertThat(call.cancelled()).isTrue();
    assertThat(f.transport.openConnections()).isZero();
    assertThat(f.loop.pendingTasks()).isZero();
  }

  @Test
  void firstTokenTimer_onlyMetadataBeforeDeadline_firesAsOverload() {
    f.decode();
    Call call = f.transport.last().sse();
    f.loop.advanceMillis(1000);
    call.event(OpenAiWire.usage(5, 0));
    f.loop.advanceMillis(1000);
    call.event(OpenAiWire.completionToken(""));

    f.loop.advanceMillis(499);
    assertThat(f.listener.quiet()).isTrue();
    assertThat(f.listener.events).hasSize(2);

    f.loop.advanceMillis(1);
    assertThat(f.listener.failure().failureClass()).isEqualTo(FailureClass.OVERLOAD);
    assertThat(f.listener.failure().status()).isEqualTo(504);
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void firstTokenTimer_chatRoleChunkAlone_isStillABrokenStream_notOverload() {
    // vLLM opens every chat stream with the role chunk at once; a decode that then hangs must
    // count in the stream streak (the spec's "first-token timeout"), not as back-pressure.
    f.client.decode(LegFixture.D1, LegFixture.CHAT, LegFixture.handoff(narwhal.proto.v1.Route.ROUTE_CHAT_COMPLETIONS),
        LegFixture.decodeLimits(2500, 10_000), f.loop, f.listener);
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.chatRole());

    f.loop.advanceMillis(2500);

    assertThat(f.listener.failure().failureClass()).isEqualTo(FailureClass.STREAM);
    assertThat(f.listener.failure().status()).isEqualTo(504);
  }

  @Test
  void firstTokenTimer_tokenJustInTime_stopsIt() {
    f.decode();
    Call call = f.transport.last().sse();
    f.loop.advanceMillis(2499);
    call.event(OpenAiWire.completionToken("a"));

    f.loop.advanceMillis(5000);

    assertThat(f.listener.quiet()).isTrue();
    assertThat(f.listener.events).hasSize(1);
  }

  @Test
  void silenceTimer_afterFirstToken_firesExactlyAtReadTimeoutSinceLastChunk() {
    f.decode(LegFixture.decodeLimits(2500, 3000));
    Call call = f.transport.last().sse();
    f.loop.advanceMillis(100);
    call.event(OpenAiWire.completionToken("a"));
    f.loop.advanceMillis(1000);
    call.event(OpenAiWire.completionToken("b"));

    f.loop.advanceMillis(2999);
    assertThat(f.listener.quiet()).isTrue();

    f.loop.advanceMillis(1);
    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(504);
    assertThat(failure.failureClass()).isEqualTo(FailureClass.STREAM);
    assertThat(failure.getMessage()).startsWith("engine went silent between tokens");
    assertThat(failure.getMessage()).contains("3 s").contains("after 2 tokens");
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void silenceTimer_metadataChunk_resetsIt() {
    f.decode(LegFixture.decodeLimits(2500, 3000));
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.completionToken("a"));
    f.loop.advanceMillis(2000);
    call.event(OpenAiWire.usage(1, 1));

    f.loop.advanceMillis(2999);
    assertThat(f.listener.quiet()).isTrue();

    f.loop.advanceMillis(1);
    assertThat(f.listener.failure().getMessage()).startsWith("engine went silent between tokens");
  }

  @Test
  void silenceTimer_readTimeoutZero_neverFires() {
    f.decode(LegFixture.decodeLimits(2500, 0));
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.completionToken("a"));

    f.loop.advanceMillis(3_600_000);

    assertThat(f.listener.quiet()).isTrue();
    assertThat(call.cancelled()).isFalse();
    assertThat(f.loop.pendingTasks()).isZero();
  }

  @Test
  void pause_suspendsSilenceTimer_resumeRearmsTheFullBound() {
    DecodeCall leg = f.decode(LegFixture.decodeLimits(2500, 3000));
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.completionToken("a"));
    f.loop.advanceMillis(1000);

    leg.pause();
    assertThat(call.paused()).isTrue();
    f.loop.advanceMillis(60_000);
    assertThat(f.listener.quiet()).isTrue();

    leg.resume();
    assertThat(call.paused()).isFalse();
    f.loop.advanceMillis(2999);
    assertThat(f.listener.quiet()).isTrue();
    f.loop.advanceMillis(1);
    assertThat(f.listener.failure().getMessage()).startsWith("engine went silent between tokens");
  }

  @Test
  void pause_beforeFirstToken_keepsFirstTokenTimer() {
    DecodeCall leg = f.decode();
    f.transport.last().sse();

    leg.pause();
    f.loop.advanceMillis(2500);

    assertThat(f.listener.failure().getMessage()).startsWith("no first token within 2.5 s");
  }

  @Test
  void cancel_midStream_cancelsExchangeAndStaysSilent() {
    DecodeCall leg = f.decode();
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.completionToken("a"));

    leg.cancel();
    f.loop.advanceMillis(60_000);

    assertThat(call.cancelled()).isTrue();
    assertThat(f.listener.quiet()).isTrue();
    assertThat(f.loop.pendingTasks()).isZero();
  }

  @Test
  void done_afterTokens_completesOnceAndDisarmsTimers() {
    f.decode(LegFixture.decodeLimits(2500, 3000));
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.completionToken("a"));
    call.event(OpenAiWire.completionFinish("", "stop"));
    call.event("[DONE]");
    call.end();

    f.loop.advanceMillis(60_000);

    assertThat(f.listener.completions).isEqualTo(1);
    assertThat(f.listener.failures).isEmpty();
    assertThat(f.listener.events).hasSize(2);
    assertThat(f.loop.pendingTasks()).isZero();
  }
}
