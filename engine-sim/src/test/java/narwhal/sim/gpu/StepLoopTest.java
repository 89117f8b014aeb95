package narwhal.sim.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The step loop against its formulas, on a manual clock: every duration below is computed by hand
 * from {@link #PROFILE} and checked to the nanosecond's rounding.
 */
class StepLoopTest {

  private static final Offset<Double> EXACT = within(1e-6);

  /** Round numbers, so the expected durations can be read off: see each test. */
  private static final GpuProfile PROFILE = GpuProfile.builder()
      .stepTokenBudget(2048)
      .maxNumSeqs(256)
      .prefillBaseMillis(2)
      .prefillMillisPerToken(0.1)
      .prefillMillisPerTokenSquared(0.001)
      .decodeBaseMillis(5)
      .decodeMillisPerResidentToken(0.01)
      .decodeMillisPerSequence(0.5)
      .kvCapacityTokens(100_000)
      .build();

  private static final long LEASE_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final ManualStepScheduler scheduler = new ManualStepScheduler();

  private StepLoop loop(GpuProfile profile) {
    return new StepLoop(profile, scheduler, 7, LEASE_NANOS);
  }

  private TokenLog submit(StepLoop loop, SequenceSpec spec) {
    TokenLog log = new TokenLog(scheduler);
    loop.submit(spec, Runnable::run, log);
    return log;
  }

  /** Prefill of L tokens in one chunk: 2 + 0.1·L + 0.001·L². */
  private static double prefill(int tokens) {
    return 2 + 0.1 * tokens + 0.001 * tokens * (double) tokens;
  }

  /** A decode step over S sequences holding T context tokens: 5 + 0.01·T + 0.5·S. */
  private static double decode(long residentTokens, int sequences) {
    return 5 + 0.01 * residentTokens + 0.5 * sequences;
  }

  @Test
  void oneRequest_firstTokenEndsItsPrefill_thenOneTokenPerDecodeStep() {
    StepLoop loop = loop(PROFILE);
    TokenLog log = submit(loop, SequenceSpec.prefill(100, 3));

    scheduler.runToIdle();

    assertThat(log.tokens()).isEqualTo(3);
    assertThat(log.first()).isCloseTo(22, EXACT); // 2 + 10 + 10
    assertThat(log.interval(2)).isCloseTo(6.51, EXACT); // 5 + 0.01·101 + 0.5
    assertThat(log.interval(3)).isCloseTo(6.52, EXACT); // context 102
    assertThat(loop.load()).isEqualTo(new StepLoad(0, 0, 0, 100_000, 0, 0, 0, 3));
  }

  @Test
  void prefillTime_growsQuadraticallyWithPromptLength() {
    assertThat(PROFILE.prefillMillis(1000)).isCloseTo(1102, EXACT);
    double[] firstToken = new double[3];
    for (int i = 0; i < 3; i++) {
      ManualStepScheduler own = new ManualStepScheduler();
      StepLoop loop = new StepLoop(PROFILE, own, 7, LEASE_NANOS);
      TokenLog log = new TokenLog(own);
      loop.submit(SequenceSpec.prefill(1000 * (i + 1), 1), Runnable::run, log);
      own.runToIdle();
      firstToken[i] = log.first();
    }

    assertThat(firstToken[0]).isCloseTo(prefill(1000), EXACT);
    assertThat(firstToken[1]).isCloseTo(prefill(2000), EXACT);
    // A second difference of 2·0.001·1000² ms: the attention term, not a linear one.
    assertThat(firstToken[2] - 2 * firstToken[1] + firstToken[0]).isCloseTo(2000, within(1e-6));
  }

  @Test
  void longPrompt_isChunkedAcrossSteps_andCostsWhatItWouldInOne() {
    StepLoop loop = loop(PROFILE.toBuilder().stepTokenBudget(256).build());
    TokenLog log = submit(loop, SequenceSpec.prefill(600, 1));

    // [0,256): 2 + 25.6 + 65.536, then [256,512): 25.6 + 196.608; no token yet.
    scheduler.advanceMillis(93.136 + 222.208);
    assertThat(log.tokens()).isZero();
    assertThat(loop.load().steps()).isEqualTo(3);
    scheduler.runToIdle();

    // [512,600): 8.8 + 97.856. The chunks add up to the prompt computed at once: 2 + 60 + 360.
    assertThat(log.first()).isCloseTo(422, EXACT);
    assertThat(loop.load().steps()).isEqualTo(3);
  }

  @Test
  void aPrefillJoiningTheBatch_delaysTheDecodesOfThatStep() {
    StepLoop loop = loop(PROFILE);
    List<TokenLog> late = new ArrayList<>();
    TokenLog decoding = submit(loop, SequenceSpec.prefill(10, 8))
        // Arrives as token 3 ends step 3: step 4 is planned already, so it joins step 5.
        .whenToken(3, () -> late.add(submit(loop, SequenceSpec.prefill(1000, 1))));

    scheduler.runToIdle();

    assertThat(decoding.first()).isCloseTo(prefill(10), EXACT);
    assertThat(decoding.interval(4)).isCloseTo(decode(13, 1), EXACT);
    assertThat(decoding.interval(5)).isCloseTo(decode(14, 1) + prefill(1000), EXACT);
    assertThat(late.get(0).first()).isCloseTo(decoding.token(5), EXACT);
    assertThat(decoding.interval(6)).isCloseTo(decode(15, 1), EXACT);
  }

  @Test
  void decodeInterval_growsLinearlyWithResidentTokensAndSequences() {
    double[] interval = new double[4];
    for (int i = 0; i < 4; i++) {
      int sequences = 1 << i;
      ManualStepScheduler own = new ManualStepScheduler();
      StepLoop loop = new StepLoop(PROFILE, own, 7, LEASE_NANOS);
      List<TokenLog> logs = new ArrayList<>();
      for (int s = 0; s < sequences; s++) {
        TokenLog log = new TokenLog(own);
        loop.submit(SequenceSpec.prefill(100, 3), Runnable::run, log);
        logs.add(log);
      }
      own.runToIdle();
      // Every prompt fits the budget: one prefill step for all, then they decode together.
      assertThat(logs.get(0).first()).isCloseTo(sequences * prefill(100), EXACT);
      for (TokenLog log : logs) {
        assertThat(log.interval(2)).isCloseTo(logs.get(0).interval(2), EXACT);
      }
      interval[i] = logs.get(0).interval(2);
      assertThat(interval[i]).isCloseTo(decode(101L * sequences, sequences), EXACT);
    }
    // 1, 2, 4, 8 sequences: each doubling adds as much as the sequences it adds.
    assertThat(interval[1] - interval[0]).isCloseTo(1.51, EXACT);
    assertThat(interval[2] - interval[1]).isCloseTo(2 * 1.51, EXACT);
    assertThat(interval[3] - interval[2]).isCloseTo(4 * 1.51, EXACT);
  }

  @Test
  void maxNumSeqs_capsTheBatch() {
    StepLoop loop = loop(PROFILE.toBuilder().maxNumSeqs(2).build());
    TokenLog first = submit(loop, SequenceSpec.prefill(10, 3));
    TokenLog second = submit(loop, SequenceSpec.prefill(10, 5));
    TokenLog third = submit(loop, SequenceSpec.prefill(10, 1));
    scheduler.runPending();

    assertThat(loop.load().running()).isEqualTo(2);
    assertThat(loop.load().waiting()).isEqualTo(1);
    scheduler.runToIdle();

    // The third is admitted in the step after the first one finished.
    assertThat(third.first()).isCloseTo(first.last() + decode(13, 1) + prefill(10), EXACT);
    assertThat(second.tokens()).isEqualTo(5);
  }

  @Test
  void requestThatDoesNotFitTheFreeKv_waitsInArrivalOrder() {
    StepLoop loop = loop(PROFILE.toBuilder().kvCapacityTokens(300).build());
    TokenLog holder = submit(loop, SequenceSpec.prefill(200, 10));
    TokenLog big = submit(loop, SequenceSpec.prefill(150, 2));
    TokenLog small = submit(loop, SequenceSpec.prefill(10, 2));
    scheduler.advanceMillis(1);

    // 201 held by the first (its prompt and its first token); 150 + 1 more does not fit, and the
    // small one, though it would fit, waits behind it (FIFO, as vLLM).
    assertThat(loop.load().running()).isEqualTo(1);
    assertThat(loop.load().waiting()).isEqualTo(2);
    scheduler.runToIdle();

    assertThat(holder.tokens()).isEqualTo(10);
    assertThat(big.first()).isCloseTo(holder.last() + prefill(150) + prefill(10), EXACT);
    assertThat(small.first()).isCloseTo(big.first(), EXACT);
    assertThat(loop.load().kvUsedTokens()).isZero();
  }

  @Test
  void runningDecodesOutgrowingTheKv_preemptTheNewest_whichRecomputesLater() {
    StepLoop loop = loop(PROFILE.toBuilder().kvCapacityTokens(230).build());
    TokenLog older = submit(loop, SequenceSpec.prefill(100, 100));
    TokenLog newer = submit(loop, SequenceSpec.prefill(100, 100));

    scheduler.runToIdle();

    // Both prefill in step 1 (202 tokens), then grow by 2 a step: step 15 fills the cache (230),
    // so step 16 preempts the newer one, which had produced 15 tokens.
    assertThat(loop.load().preemptions()).isEqualTo(1);
    assertThat(older.tokens()).isEqualTo(100);
    assertThat(newer.tokens()).isEqualTo(100);
    assertThat(newer.token(15)).isCloseTo(older.token(15), EXACT);
    // It waits for room (the older grows to 200 of 230), then recomputes its 115 tokens as a
    // prefill, which produces its 16th token.
    assertThat(newer.token(16)).isCloseTo(older.last() + prefill(115), EXACT);
    assertThat(loop.load().kvUsedTokens()).isZero();
  }

  @Test
  void requestThatCouldNeverFit_isRefused() {
    StepLoop loop = loop(PROFILE.toBuilder().kvCapacityTokens(300).build());

    assertThat(loop.refusal(250, 50)).isNull();
    assertThat(loop.refusal(250, 51))
        .isEqualTo("the request needs 301 KV tokens (250 in the prompt, 51 to generate) but the engine's KV cache"
            + " holds 300");
    assertThatThrownBy(() -> loop.submit(SequenceSpec.prefill(301, 1), Runnable::run, new TokenLog(scheduler)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("302 KV tokens");
  }

  @Test
  void jitter_isDeterministicForASeed() {
    GpuProfile jittery = PROFILE.toBuilder().jitter(0.5).build();
    List<Double> first = run(jittery, 42);
    List<Double> again = run(jittery, 42);
    List<Double> other = run(jittery, 43);

    assertThat(again).isEqualTo(first);
    assertThat(other).isNotEqualTo(first);
    // The first step computes both prompts: 22 + 122 ms before jitter.
    assertThat(first.get(0)).isBetween(0.5 * 144, 1.5 * 144);
    assertThat(run(PROFILE, 42).get(0)).isCloseTo(144, EXACT);
  }

  private static List<Double> run(GpuProfile profile, long seed) {
    ManualStepScheduler own = new ManualStepScheduler();
    StepLoop loop = new StepLoop(profile, own, seed, LEASE_NANOS);
    TokenLog log = new TokenLog(own);
    loop.submit(SequenceSpec.prefill(100, 20), Runnable::run, log);
    loop.submit(SequenceSpec.prefill(300, 5), Runnable::run, new TokenLog(own));
    own.runToIdle();
    return log.tokenMillis;
  }

  @Test
  void cancel_freesTheKvOnce_andTheEngineGoesIdle() {
    StepLoop loop = loop(PROFILE);
    TokenLog log = new TokenLog(scheduler);
    Sequence sequence = loop.submit(SequenceSpec.prefill(100, 1000), Runnable::run, log);
    scheduler.advanceMillis(22 + 6.51);
    assertThat(log.tokens()).isEqualTo(2);
    assertThat(loop.load().kvUsedTokens()).isEqualTo(102);

    sequence.cancel();
    sequence.cancel();
    scheduler.runToIdle();

    assertThat(loop.load().kvUsedTokens()).isZero();
    assertThat(loop.load().running()).isZero();
    assertThat(log.tokens()).isEqualTo(2); // the step under way produced nothing for it
    assertThat(scheduler.clock.pendingTasks()).isZero();
  }

  @Test
  void cancel_ofAWaitingOrUnseenRequest_leavesNothingBehind() {
    StepLoop loop = loop(PROFILE.toBuilder().kvCapacityTokens(300).build());
    submit(loop, SequenceSpec.prefill(250, 10));
    TokenLog waitingLog = new TokenLog(scheduler);
    Sequence waiting = loop.submit(SequenceSpec.prefill(100, 1), Runnable::run, waitingLog);
    TokenLog unseenLog = new TokenLog(scheduler);
    Sequence unseen = loop.submit(SequenceSpec.prefill(10, 1), Runnable::run, unseenLog);
    unseen.cancel(); // before it was ever scheduled
    scheduler.runPending();
    assertThat(loop.load().waiting()).isEqualTo(1);

    waiting.cancel();
    scheduler.runToIdle();

    assertThat(loop.load().waiting()).isZero();
    assertThat(waitingLog.tokens()).isZero();
    assertThat(unseenLog.tokens()).isZero();
    assertThat(loop.load().kvUsedTokens()).isZero();
  }

  @Test
  void leasedPrefill_keepsItsKvUntilReleased_andBlocksAdmissionMeanwhile() {
    StepLoop loop = loop(PROFILE.toBuilder().kvCapacityTokens(300).build());
    TokenLog prefill = submit(loop, SequenceSpec.prefill(200, 1).leased("p-1"));
    scheduler.advanceMillis(prefill(200));
    assertThat(prefill.tokens()).isEqualTo(1);
    assertThat(loop.load().kvUsedTokens()).isEqualTo(201);
    assertThat(loop.load().leases()).isEqualTo(1);
    assertThat(loop.load().leasedKvTokens()).isEqualTo(201);

    TokenLog next = submit(loop, SequenceSpec.prefill(150, 1));
    scheduler.advanceMillis(1000);
    assertThat(next.tokens()).isZero(); // 151 does not fit beside the lease

    assertThat(loop.releaseLease("p-1")).isTrue();
    assertThat(loop.releaseLease("p-1")).isFalse();
    assertThat(loop.releaseLease("unknown")).isFalse();
    double released = scheduler.nowMillis();
    scheduler.runToIdle();

    assertThat(next.first()).isCloseTo(released + prefill(150), EXACT);
    assertThat(loop.load().kvUsedTokens()).isZero();
    assertThat(loop.load().leases()).isZero();
    assertThat(loop.load().leasedKvTokens()).isZero();
  }

  @Test
  void lease_expiresWhenNoDecodePullsIt() {
    StepLoop loop = loop(PROFILE);
    submit(loop, SequenceSpec.prefill(100, 1).leased("p-2"));
    scheduler.advanceMillis(22);
    assertThat(loop.load().kvUsedTokens()).isEqualTo(101);

    scheduler.advanceMillis(30_000 - 0.001);
    assertThat(loop.load().kvUsedTokens()).isEqualTo(101);
    scheduler.advanceMillis(0.001);

    assertThat(loop.load().kvUsedTokens()).isZero();
    assertThat(loop.releaseLease("p-2")).isFalse();
    assertThat(scheduler.clock.pendingTasks()).isZero();
  }

  @Test
  void cancel_ofALeasedPrefill_freesItsKv() {
    StepLoop loop = loop(PROFILE);
    TokenLog log = new TokenLog(scheduler);
    Sequence sequence = loop.submit(SequenceSpec.prefill(100, 1).leased("p-3"), Runnable::run, log);
    scheduler.advanceMillis(22);
    assertThat(loop.load().leases()).isEqualTo(1);

    sequence.cancel();
    scheduler.runPending();

    assertThat(loop.load().kvUsedTokens()).isZero();
    assertThat(loop.releaseLease("p-3")).isFalse();
  }

  @Test
  void pulledKv_arrivesOffTheStepLoop_thenTheSequenceDecodesWithItsPromptResident() {
    StepLoop loop = loop(PROFILE);
    TokenLog busy = submit(loop, SequenceSpec.prefill(10, 50));
    TokenLog decode = submit(loop, SequenceSpec.pulled(1000, 3, TimeUnit.MILLISECONDS.toNanos(4)));
    scheduler.advanceMillis(3.9);
    assertThat(loop.load().waiting()).isEqualTo(1); // waiting for its KV
    assertThat(loop.load().kvUsedTokens()).isEqualTo(11); // the busy one's prompt and token; nothing pulled yet

    scheduler.runToIdle();

    assertThat(decode.kvArrivedMillis).containsExactly(4.0);
    // The busy sequence's prefill ends at 3.1; its first decode step (3.1 → 8.71) was planned before
    // the KV landed at 4, so the pulled sequence joins the step after, decoding beside it.
    assertThat(busy.first()).isCloseTo(3.1, EXACT);
    assertThat(decode.first()).isCloseTo(busy.token(3), EXACT);
    assertThat(busy.interval(3)).isCloseTo(decode(12 + 1000, 2), EXACT);
    assertThat(decode.interval(2)).isCloseTo(decode(13 + 1001, 2), EXACT);
  }

  @Test
  void lateTimers_areMadeUpForByTheNextStep_soTheEnginesPaceHolds() {
    // Every timer fires 0.7 ms late, as Netty's NIO loop (millisecond wake-ups) may.
    StepScheduler late = new StepScheduler() {
      @Override
      public long nanoTime() {
        return scheduler.nanoTime();
      }

      @Override
      public void execute(Runnable task) {
        scheduler.execute(task);
      }

      @Override
      public Cancellable schedule(Runnable task, long delayNanos) {
        return scheduler.schedule(task, delayNanos + 700_000);
      }
    };
    StepLoop loop = new StepLoop(PROFILE, late, 7, LEASE_NANOS);
    TokenLog log = new TokenLog(scheduler);
    loop.submit(SequenceSpec.prefill(100, 10), Runnable::run, log);

    scheduler.runToIdle();

    double onTime = prefill(100);
    for (int n = 2; n <= 10; n++) {
      onTime += decode(99 + n, 1);
    }
    // Late by one timer's lateness, not by ten.
    assertThat(log.token(1)).isCloseTo(prefill(100) + 0.7, EXACT);
    assertThat(log.token(10)).isCloseTo(onTime + 0.7, EXACT);
  }

  @Test
  void emptyEngine_idles_andWakesWhenWorkArrives() {
    StepLoop loop = loop(PROFILE);
    scheduler.runToIdle();
    assertThat(scheduler.clock.pendingTasks()).isZero();
    scheduler.advanceMillis(5_000);

    TokenLog log = submit(loop, SequenceSpec.prefill(100, 1));
    scheduler.runToIdle();

    assertThat(log.first()).isCloseTo(5_000 + 22, EXACT);
    assertThat(loop.load().steps()).isEqualTo(1);
  }

  @Test
  void profile_rejectsOutOfRangeValues() {
    assertThatThrownBy(() -> PROFILE.toBuilder().stepTokenBudget(0).build())
        .hasMessage("step_token_budget must be at least 1, got 0");
    assertThatThrownBy(() -> PROFILE.toBuilder().decodeBaseMillis(-1).build())
        .hasMessage("decode_base_ms must be a finite number >= 0, got -1.0");
    assertThatThrownBy(() -> PROFILE.toBuilder().jitter(1).build())
        .hasMessage("jitter must be in [0, 1), got 1.0");
  }
}
