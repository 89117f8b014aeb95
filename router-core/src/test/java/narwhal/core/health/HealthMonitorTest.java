package narwhal.core.health;

import narwhal.api.FailureOrigin;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.core.checks.EngineProber;
import narwhal.config.EngineContract;
import narwhal.config.EngineRestartPolicy;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.HealthConfig;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.CheckResult.Outcome;
import narwhal.config.RecoveryConfig;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.testing.ManualScheduler;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import narwhal.core.legs.EngineFailure;
import narwhal.api.FailureClass;
import narwhal.spi.Phase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The breaker and readmission state machine, driven by a manual clock: one monitor tick per
 * second, readmission every 2 ticks; liveness sweeps off except where a test turns them on.
 */
class HealthMonitorTest {

  private final ManualScheduler clock = new ManualScheduler();
  private final FakeProber prober = new FakeProber();
  private final List<Map<String, Object>> events = new ArrayList<>();
  private Fleet fleet;
  private HealthMonitor monitor;

  @AfterEach
  void stop() {
    if (monitor != null) {
      monitor.close();
      clock.runPending();
      assertThat(clock.pendingTasks()).as("the monitor leaves no timer behind").isZero();
    }
  }

  private void start(FleetConfig config) {
    fleet = new Fleet(config.engines());
    monitor = new HealthMonitor(config, fleet, prober, clock, (event, fields) -> {
      Map<String, Object> row = new LinkedHashMap<>(fields);
      row.put("event", event);
      events.add(row);
    });
    monitor.start();
  }

  private static FleetConfig fleetOf(EngineSpec... engines) {
    return withLiveness(FleetConfig.of("m", List.of(engines)), 0);
  }

  private static FleetConfig withLiveness(FleetConfig c, int every) {
    return c.withRecovery(new RecoveryConfig(3, 2, every, 2, 0.0, EngineRestartPolicy.INDIVIDUAL,
        "runs/state.json", false, HealthConfig.defaults()))
        .withController(c.controller().withMonitorIntervalS(1.0));
  }

  private static FleetConfig twoByTwo() {
    return fleetOf(spec("p0", EngineRole.PREFILL), spec("p1", EngineRole.PREFILL),
        spec("d0", EngineRole.DECODE), spec("d1", EngineRole.DECODE));
  }

  private static EngineSpec spec(String iid, EngineRole role) {
    return EngineSpec.of(iid, "http://127.0.0.1:1/" + iid, role);
  }

  private static CheckResult pass(String detail) {
    return new CheckResult("probe", "x", Outcome.PASSED, detail, null, null, 0);
  }

  private static CheckResult fail(String detail) {
    return new CheckResult("probe", "x", Outcome.FAILED, detail, null, null, 0);
  }

  /** A failed probe blamed on {@code iid}'s {@code phase} leg. */
  private static CheckResult failOn(String iid, Phase phase, String detail) {
    return new CheckResult("kv_transfer", "pair", Outcome.FAILED, detail, phase, iid, 0);
  }

  private static EngineFailure failure(String iid, Phase phase, FailureClass cls) {
    return new EngineFailure(phase, FailureOrigin.HEADERS, cls, 502, 500, "engine_error", iid, cls.wireName() + " on " + iid,
        null, true, null);
  }

  private void fail(String iid, FailureClass cls, int times) {
    for (int i = 0; i < times; i++) {
      monitor.legFailed(failure(iid, Phase.DECODE, cls), "p0");
    }
    clock.runPending();
  }

  private EngineState engine(String iid) {
    return fleet.get(iid);
  }

  private void ticks(int n) {
    clock.advanceMillis(1000L * n);
  }

  private List<String> eventNames() {
    return events.stream().map(e -> (String) e.get("event")).toList();
  }

  @Test
  void streamStreak_holdsTheDecodeEngine_andPlacementSkipsIt() {
    start(twoByTwo());
    fail("d0", FailureClass.STREAM, 2);
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);

    fail("d0", FailureClass.STREAM, 1);

    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.HELD);
    assertThat(engine("d0").conditionCause()).isEqualTo("stream");
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e).containsEntry("event", "engine_held").containsEntry("iid", "d0")
          .containsEntry("producer_iid", "p0");
      assertThat((String) e.get("detail")).contains("stream streak of 3");
    });
    for (int i = 0; i < 5; i++) {
      assertThat(fleet.pickDecode("p0", Set.of(), clock.nanoTime()).iid()).isEqualTo("d1");
    }
  }

  @Test
  void aCompletedDecodeEndsTheStreamStreak_butAPrefillSuccessDoesNot() {
    start(twoByTwo());
    fail("d0", FailureClass.STREAM, 2);
    monitor.decodeSucceeded("d0");
    fail("d0", FailureClass.STREAM, 2);
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);

    monitor.prefillSucceeded("d0");
    fail("d0", FailureClass.STREAM, 1);
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.HELD);
  }

  @Test
  void successFromAnotherLoop_behindAQueuedFailure_stillEndsThatFailuresStreak() {
    // Reports from request loops reach the breaker's loop as tasks: here they queue until run.
    startOffLoop(twoByTwo());
    monitor.legFailed(failure("d0", Phase.DECODE, FailureClass.STREAM), "p0");
    monitor.decodeSucceeded("d0"); // made after the failure: must not be dropped as "nothing to clear"
    clock.runPending();
    assertThat(engine("d0").streaks().get(FailureClass.STREAM)).isZero();
  }

  @Test
  void successWithNothingToClear_costsTheBreakersLoopNothing() {
    startOffLoop(twoByTwo());
    clock.runPending();
    int before = clock.pendingTasks();
    monitor.prefillSucceeded("p0");
    monitor.decodeSucceeded("d0");
    assertThat(clock.pendingTasks()).isEqualTo(before);

    monitor.legFailed(failure("d0", Phase.DECODE, FailureClass.STREAM), "p0");
    clock.runPending();
    monitor.decodeSucceeded("d0"); // now there is a streak to end: that one goes to the loop
    assertThat(clock.pendingTasks()).isEqualTo(before + 1);
    clock.runPending();
    assertThat(engine("d0").streaks().get(FailureClass.STREAM)).isZero();
  }

  /** As {@link #start}, with the monitor on a loop the callers are never on. */
  private void startOffLoop(FleetConfig config) {
    fleet = new Fleet(config.engines());
    Scheduler elsewhere = new Scheduler() {
      @Override
      public long nanoTime() {
        return clock.nanoTime();
      }

      @Override
      public void execute(Runnable command) {
        clock.execute(command);
      }

      @Override
      public Timer schedule(Runnable task, long delay, TimeUnit unit) {
        return clock.schedule(task, delay, unit);
      }

      @Override
      public boolean inLoop() {
        return false;
      }
    };
    monitor = new HealthMonitor(config, fleet, prober, elsewhere, (event, fields) -> { });
    monitor.start();
  }

  @Test
  void streaksAreCountedPerClass() {
    start(twoByTwo());
    fail("d0", FailureClass.STREAM, 2);
    fail("d0", FailureClass.INFERENCE_STATUS, 2);
    assertThat(engine("d0").streaks().get(FailureClass.STREAM)).isEqualTo(2);
    assertThat(engine("d0").streaks().get(FailureClass.INFERENCE_STATUS)).isEqualTo(2);
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
  }

  @Test
  void aRejectedRequestProvesTheEngineAnswers_clearingConnectionAndInferenceStatus() {
    start(twoByTwo());
    fail("d0", FailureClass.CONNECTION, 2);
    fail("d0", FailureClass.INFERENCE_STATUS, 2);
    fail("d0", FailureClass.STREAM, 2);
    fail("d0", FailureClass.REJECTED, 1);
    assertThat(engine("d0").streaks().get(FailureClass.CONNECTION)).isZero();
    assertThat(engine("d0").streaks().get(FailureClass.INFERENCE_STATUS)).isZero();
    assertThat(engine("d0").streaks().get(FailureClass.STREAM)).isEqualTo(2);
  }

  @Test
  void heldEngine_isProbedThroughItsOriginalProducer_andReadmittedWhenTheProbePasses() {
    start(twoByTwo());
    fail("d0", FailureClass.STREAM, 3);

    ticks(1);
    assertThat(prober.calls).as("no probe before readmit_every ticks").isEmpty();
    ticks(1);
    assertThat(prober.calls).containsExactly("inference p0->d0");
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.HELD);

    prober.complete(pass("2 tokens"));

    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(engine("d0").streaks().get(FailureClass.STREAM)).isZero();
    assertThat(eventNames()).containsExactly("engine_held", "probe", "readmitted");
    assertThat(events.get(1)).containsEntry("outcome", "passed").containsEntry("probe", "inference");
  }

  @Test
  void failingProbe_keepsTheEngineOut_asEjected_andItIsProbedAgainEveryCadence() {
    start(twoByTwo());
    fail("d0", FailureClass.STREAM, 3);
    ticks(2);
    prober.complete(failOn("d0", Phase.DECODE, "no first token within 2 s"));

    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.EJECTED);
    assertThat(fleet.pickDecode("p0", Set.of(), clock.nanoTime()).iid()).isEqualTo("d1");

    ticks(2);
    assertThat(prober.calls).containsExactly("inference p0->d0", "inference p0->d0");
    prober.complete(failOn("d0", Phase.DECODE, "still silent"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.EJECTED);

    ticks(2);
    prober.complete(pass("ok"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(eventNames()).containsExactly(
        "engine_held", "probe", "engine_ejected", "probe", "probe", "readmitted");
  }

  @Test
  void probeIsInconclusive_whenTheOriginalProducerIsOut_orThePartnerLegFails() {
    start(twoByTwo());
    fail("d0", FailureClass.STREAM, 3);
    for (int i = 0; i < 3; i++) {
      monitor.legFailed(failure("p0", Phase.PREFILL, FailureClass.CONNECTION), null);
    }
    prober.autoHealth = iid -> false;

    ticks(2);
    assertThat(prober.calls).as("no inference probe without its producer").isEmpty();
    assertThat(events).filteredOn(e -> "d0".equals(e.get("iid")) && "probe".equals(e.get("event")))
        .singleElement().satisfies(e -> assertThat(e).containsEntry("outcome", "inconclusive"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.HELD);

    prober.autoHealth = iid -> true;
    ticks(2);
    assertThat(engine("p0").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(prober.calls).containsExactly("inference p0->d0");
    prober.complete(failOn("p0", Phase.PREFILL, "p0 answered HTTP 500"));
    assertThat(events.get(events.size() - 1)).containsEntry("outcome", "inconclusive");
    assertThat(engine("d0").condition()).as("the producer's failure says nothing about d0")
        .isEqualTo(EngineCondition.HELD);

    ticks(2);
    prober.complete(pass("ok"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
  }

  @Test
  void heldPrefillEngine_isProbedWithTheLeastLoadedDecodePartner() {
    start(twoByTwo());
    engine("d0").reserveDecode(0);
    for (int i = 0; i < 3; i++) {
      monitor.legFailed(failure("p1", Phase.PREFILL, FailureClass.INFERENCE_STATUS), null);
    }
    clock.runPending();
    assertThat(engine("p1").condition()).isEqualTo(EngineCondition.HELD);

    ticks(2);
    assertThat(prober.calls).containsExactly("inference p1->d1");
  }

  @Test
  void connectionStreak_ejectsAtOnceWhileAnotherEngineCovers_andAHealthCheckReadmits() {
    start(fleetOf(spec("p0", EngineRole.PREFILL), spec("d0", EngineRole.DECODE), spec("d1", EngineRole.DECODE)));
    fail("d0", FailureClass.CONNECTION, 3);
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.EJECTED);
    assertThat(fleet.coversBothPhases()).isTrue();

    ticks(2);
    assertThat(prober.calls).containsExactly("health d0");
    prober.complete(fail("connection refused"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.EJECTED);

    ticks(2);
    prober.complete(pass("HTTP 200"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
  }

  @Test
  void connectionStreak_onTheLastEngineOfItsRole_keepsItInPlacement() {
    start(fleetOf(spec("p0", EngineRole.PREFILL), spec("d0", EngineRole.DECODE), spec("d1", EngineRole.DECODE)));
    fail("d1", FailureClass.CONNECTION, 3);
    assertThat(engine("d1").condition()).isEqualTo(EngineCondition.EJECTED);

    // Request evidence never empties a role, whatever its class: d0 is now the last decode engine.
    fail("d0", FailureClass.CONNECTION, 3);
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(engine("d0").streaks().get(FailureClass.CONNECTION)).as("starts over on fresh evidence").isZero();
    assertThat(fleet.coversBothPhases()).isTrue();
    assertThat(eventNames()).containsExactly("engine_ejected", "hold_skipped");
  }

  @Test
  void timeoutStreak_isVerifiedByAHealthCheck_andEjectsOnlyIfThatFails() {
    start(twoByTwo());
    fail("d0", FailureClass.TIMEOUT, 3);
    assertThat(prober.calls).containsExactly("health d0");
    prober.complete(pass("HTTP 200"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(engine("d0").streaks().get(FailureClass.TIMEOUT)).isZero();

    fail("d0", FailureClass.OVERLOAD, 3);
    assertThat(prober.calls).containsExactly("health d0", "health d0");
    prober.complete(fail("HTTP 503"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.EJECTED);
    assertThat(engine("d0").conditionCause()).isEqualTo("health_verify");
  }

  @Test
  void theLastEngineForARole_isNotEjected_whenItsOverloadIsConfirmedByAFailedHealthCheck() {
    start(fleetOf(spec("p0", EngineRole.PREFILL), spec("d0", EngineRole.DECODE)));
    fail("d0", FailureClass.OVERLOAD, 3);
    prober.complete(fail("health check timed out"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(eventNames()).containsExactly("probe", "hold_skipped");
    assertThat(engine("d0").streaks().get(FailureClass.OVERLOAD)).isZero();
  }

  @Test
  void readmission_startsEveryStreakOver() {
    start(twoByTwo());
    fail("d0", FailureClass.INFERENCE_STATUS, 2);
    fail("d0", FailureClass.STREAM, 3);
    ticks(2);
    prober.complete(pass("ok"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(engine("d0").streaks().snapshot().values()).containsOnly(0);
  }

  @Test
  void theLastEngineForARole_staysInPlacement_afterAStreamStreak() {
    start(fleetOf(spec("p0", EngineRole.PREFILL), spec("d0", EngineRole.DECODE)));
    fail("d0", FailureClass.STREAM, 3);
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(eventNames()).containsExactly("hold_skipped");
    assertThat(engine("d0").streaks().get(FailureClass.STREAM)).isZero();
  }

  @Test
  void bothRoleEngine_isNotHeldWhenItIsTheLastPrefillEngine() {
    start(fleetOf(spec("b0", EngineRole.BOTH), spec("d0", EngineRole.DECODE)));
    fail("b0", FailureClass.STREAM, 3);
    assertThat(engine("b0").condition()).isEqualTo(EngineCondition.ACTIVE);
  }

  @Test
  void withAContract_readmissionRunsLifecycleValidationFirst() {
    start(twoByTwo().withEngineContract(EngineContract.builder().connector("NixlConnector").build()));
    fail("d0", FailureClass.STREAM, 3);
    ticks(2);
    assertThat(prober.calls).containsExactly("lifecycle d0");
    prober.complete(pass("health, model, contract, generation, kv transfer"));
    assertThat(prober.calls).containsExactly("lifecycle d0", "inference p0->d0");
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.HELD);
    prober.complete(pass("ok"));
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.ACTIVE);

    fail("d1", FailureClass.CONNECTION, 3);
    ticks(2);
    prober.complete(fail("contract: connector pinned NixlConnector, engine reports LMCache"));
    assertThat(engine("d1").condition()).isEqualTo(EngineCondition.EJECTED);
    ticks(2);
    prober.complete(pass("all checks"));
    assertThat(engine("d1").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(prober.calls).containsExactly(
        "lifecycle d0", "inference p0->d0", "lifecycle d1", "lifecycle d1");
  }

  @Test
  void livenessMisses_ejectAnEngine_andAHealthCheckBringsItBack() {
    start(withLiveness(twoByTwo(), 5));
    prober.autoHealth = iid -> !iid.equals("p1");
    ticks(5);
    assertThat(engine("p1").condition()).isEqualTo(EngineCondition.ACTIVE);
    ticks(5);
    assertThat(engine("p1").condition()).isEqualTo(EngineCondition.EJECTED);
    assertThat(engine("p1").conditionCause()).isEqualTo("liveness");

    prober.autoHealth = iid -> true;
    ticks(2);
    assertThat(engine("p1").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(eventNames()).containsSubsequence("engine_ejected", "readmitted");
  }

  @Test
  void wholeWavePolicy_holdsAdmissionUntilEveryEngineIsBack() {
    FleetConfig c = twoByTwo();
    start(c.withRecovery(c.recovery().withEngineRestartPolicy(EngineRestartPolicy.WHOLE_WAVE)));
    fail("d1", FailureClass.CONNECTION, 3);
    assertThat(monitor.admissionHeld()).isTrue();
    ticks(2);
    prober.complete(pass("HTTP 200"));
    assertThat(monitor.admissionHeld()).isFalse();
    assertThat(eventNames()).containsExactly("engine_ejected", "wave_hold", "probe", "readmitted", "wave_release");
  }

  @Test
  void wholeWave_endsWhenTheEnginesThatWentAwayAreBack_evenIfAnotherIsHeldForOtherReasons() {
    FleetConfig c = twoByTwo();
    start(c.withRecovery(c.recovery().withEngineRestartPolicy(EngineRestartPolicy.WHOLE_WAVE)));
    fail("d0", FailureClass.STREAM, 3);
    assertThat(monitor.admissionHeld()).as("a held engine is no restart").isFalse();
    for (int i = 0; i < 3; i++) {
      monitor.legFailed(failure("p1", Phase.PREFILL, FailureClass.CONNECTION), null);
    }
    assertThat(monitor.admissionHeld()).isTrue();

    ticks(2);
    // d0's inference probe and p1's health check are both due; d0 keeps failing.
    prober.complete(pass("HTTP 200"));
    prober.complete(failOn("d0", Phase.DECODE, "still silent"));
    assertThat(engine("p1").condition()).isEqualTo(EngineCondition.ACTIVE);
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.EJECTED);
    assertThat(monitor.admissionHeld()).isFalse();
  }

  @Test
  void failuresFromRequestsAlreadyInFlight_doNotMoveAnEngineThatIsOut() {
    start(twoByTwo());
    fail("d0", FailureClass.STREAM, 3);
    fail("d0", FailureClass.CONNECTION, 5);
    assertThat(engine("d0").condition()).isEqualTo(EngineCondition.HELD);
    assertThat(eventNames()).containsExactly("engine_held");
  }

  /** Probes answered by the test: each call waits until {@link #complete} (or autoHealth). */
  @Test
  void ticksThatThrow_setMonitoringDegradedAtTheLimit_andOneCleanTickRecovers() {
    FleetConfig c = withLiveness(fleetOf(spec("p0", EngineRole.PREFILL), spec("d0", EngineRole.DECODE)), 1);
    start(c.withController(c.controller().toBuilder().monitorFailureLimit(3).build()));
    prober.throwing = new IllegalStateException("probe bug reaching http://10.9.9.9:8000");

    ticks(2);
    assertThat(monitor.degradedReason()).as("two failed ticks of three").isNull();
    ticks(1);
    assertThat(monitor.degradedReason()).isEqualTo("monitoring degraded: health IllegalStateException");
    assertThat(eventNames()).containsExactly("monitoring_degraded");
    assertThat(events.get(0)).containsEntry("stage", "health").containsEntry("fault", "IllegalStateException")
        .containsEntry("failed_passes", 3);
    assertThat(events.get(0).toString()).as("no address from the message").doesNotContain("10.9.9.9");

    ticks(2);
    assertThat(eventNames()).as("entering is recorded once").containsExactly("monitoring_degraded");
    prober.throwing = null;
    prober.autoHealth = iid -> true;
    ticks(1);
    assertThat(monitor.degradedReason()).as("one clean tick recovers").isNull();
    assertThat(eventNames()).containsExactly("monitoring_degraded", "monitoring_recovered");
    assertThat(engine("p0").inPlacement()).as("the breaker kept ticking and judged nothing").isTrue();
  }

  /** A bus that records what the breaker publishes and answers who probes as the test says. */
  private static final class RecordingBus implements VerdictBus {
    final List<EngineVerdict> published = new ArrayList<>();
    java.util.function.Predicate<String> probesHere = iid -> true;

    @Override
    public void publish(EngineVerdict verdict) {
      published.add(verdict);
    }

    @Override
    public boolean probesHere(String iid) {
      return probesHere.test(iid);
    }
  }

  @Test
  void sharedVerdicts_localDecisionsArePublished_othersAppliedWithTheirAuthor_probedOnlyWhereTheBusSays() {
    start(twoByTwo());
    RecordingBus bus = new RecordingBus();
    monitor.shareVerdicts(bus);
    fail("d0", FailureClass.STREAM, 3);
    assertThat(bus.published).singleElement().satisfies(v -> {
      assertThat(v.iid()).isEqualTo("d0");
      assertThat(v.condition()).isEqualTo(EngineCondition.HELD);
      assertThat(v.cause()).isEqualTo("stream");
      assertThat(v.producerIid()).isEqualTo("p0");
    });

    monitor.applyShared(new EngineVerdict("d1", EngineCondition.EJECTED, "connection", null, "refused"), "r2");
    clock.runPending();
    assertThat(engine("d1").condition()).isEqualTo(EngineCondition.EJECTED);
    assertThat(engine("d1").conditionCause()).isEqualTo("connection");
    assertThat(events).last().satisfies(e -> assertThat(e).containsEntry("event", "engine_ejected")
        .containsEntry("iid", "d1").containsEntry("by", "r2"));
    assertThat(bus.published).as("a verdict applied from elsewhere is not published again").hasSize(1);

    // Another replica probes d1; this one probes d0, which it took out.
    bus.probesHere = iid -> !iid.equals("d1");
    ticks(4);
    assertThat(prober.calls).noneMatch(c -> c.contains("d1")).anyMatch(c -> c.contains("d0"));

    monitor.applyShared(new EngineVerdict("d1", EngineCondition.ACTIVE, null, null, "health check passed"), "r2");
    clock.runPending();
    assertThat(engine("d1").inPlacement()).isTrue();
    assertThat(events).last().satisfies(e -> assertThat(e).containsEntry("event", "readmitted").containsEntry("by", "r2"));

    // A verdict matching what this router already has changes nothing and writes nothing.
    int rows = events.size();
    monitor.applyShared(new EngineVerdict("d0", EngineCondition.HELD, "stream", "p0", "again"), "r2");
    clock.runPending();
    assertThat(events).hasSize(rows);

    prober.complete(pass("inference ok"));
    clock.runPending();
    assertThat(engine("d0").inPlacement()).isTrue();
    assertThat(bus.published).last().satisfies(v -> {
      assertThat(v.iid()).isEqualTo("d0");
      assertThat(v.condition()).isEqualTo(EngineCondition.ACTIVE);
    });
  }

  private static final class FakeProber implements EngineProber {
    final List<String> calls = new ArrayList<>();
    final List<CompletableFuture<CheckResult>> pending = new ArrayList<>();
    java.util.function.Predicate<String> autoHealth;
    /** Thrown by every health check while set: a bug in a probe, not a failed probe. */
    RuntimeException throwing;

    @Override
    public CompletableFuture<CheckResult> health(EngineSpec engine, Scheduler loop) {
      if (throwing != null) {
        throw throwing;
      }
      if (autoHealth != null) {
        return CompletableFuture.completedFuture(autoHealth.test(engine.iid())
            ? pass("HTTP 200") : fail("connection refused"));
      }
      return call("health " + engine.iid());
    }

    @Override
    public CompletableFuture<CheckResult> kvTransfer(EngineSpec producer, EngineSpec consumer, Scheduler loop) {
      return call("inference " + producer.iid() + "->" + consumer.iid());
    }

    @Override
    public CompletableFuture<CheckResult> lifecycle(EngineSpec engine, List<EngineSpec> livePeers, Scheduler loop) {
      return call("lifecycle " + engine.iid());
    }

    private CompletableFuture<CheckResult> call(String what) {
      calls.add(what);
      CompletableFuture<CheckResult> f = new CompletableFuture<>();
      pending.add(f);
      return f;
    }

    /** Completes the oldest unanswered probe. */
    void complete(CheckResult result) {
      assertThat(pending).as("a probe is waiting").isNotEmpty();
      pending.remove(0).complete(result);
    }
  }
}
