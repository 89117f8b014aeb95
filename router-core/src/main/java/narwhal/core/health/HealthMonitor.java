package narwhal.core.health;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import narwhal.core.checks.EngineProber;
import narwhal.config.EngineRestartPolicy;
import narwhal.config.FleetConfig;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.CheckResult.Outcome;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.fleet.FailureStreaks;
import narwhal.core.fleet.FailureStreaks.Evidence;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import narwhal.core.legs.EngineFailure;
import narwhal.api.FailureClass;
import narwhal.api.FailurePolicy;
import narwhal.spi.Phase;
import org.jspecify.annotations.Nullable;

/**
 * The engine breaker and its readmission loop.
 *
 * <p>Requests report every leg's outcome ({@link EngineHealthTracker}). Which classes keep a
 * streak, and what happens when one engine's streak in one class reaches {@code
 * recovery.eject_after}, is the failure policy's ({@link FailurePolicy.BreakerRemedy}): eject at
 * once (connection); verify with a health check and eject only if it fails (timeout, overload);
 * hold out of placement until an inference probe passes (stream, inference_status, kv_handoff).
 *
 * <p>Every {@code controller.monitor_interval_s} the monitor ticks. Every {@code
 * recovery.readmit_every} ticks after it left placement, an engine is probed: held engines and
 * engines ejected for answering wrongly by an inference probe (through the original producer
 * after a crossed-decode failure), engines that went away by a health check. With an {@code
 * engine_contract} pinned, readmission first runs lifecycle validation. A passing probe readmits;
 * a failing one keeps the engine out (a held engine becomes ejected); an inconclusive one (the
 * producer it needs is itself out, say) waits for the next turn. Every {@code
 * recovery.liveness_every} ticks, engines in placement get a health check; {@code
 * recovery.liveness_misses} misses in a row eject.
 *
 * <p>The last engine in placement for a role stays there whatever the class of its streak,
 * connection included: the streak comes from requests, and a request can carry a failure from
 * engine to engine; taking the role's last engine out would turn a degraded service into none.
 * Only the router's own evidence, {@code recovery.liveness_misses} missed liveness sweeps, ejects
 * the last engine.
 *
 * <p>Why one class of about 430 lines: when an engine leaves placement and when it returns are
 * decisions about the same per-engine state (streaks, condition, probe turn, the role's last
 * engine), made on one loop; the rows, the wave hold and the probe partners are already separate.
 *
 * <p>All state is confined to {@code loop}; reports from other threads hop onto it. Event rows
 * are {@link BreakerJournal}'s, the whole-wave hold {@link RestartWave}'s and the choice of probe
 * partners {@link ProbePairs}'; this class decides when an engine leaves and returns. With router
 * replicas its decisions go out through a {@link VerdictBus} and theirs come in through {@link
 * #applyShared}. Over 400 lines because every way an engine leaves or returns placement is decided
 * here, in one order, on one loop.
 */
public final class HealthMonitor implements EngineHealthTracker, AutoCloseable {

  private final Fleet fleet;
  private final EngineProber prober;
  private final Scheduler loop;
  private final BreakerJournal journal;
  private final RestartWave wave;
  private final ProbePairs pairs;
  private final BreakerSettings settings;
  private final Map<String, TrackedEngine> tracked = new LinkedHashMap<>();
  /** Failure reports made but not yet applied on the breaker's loop (successes wait behind them). */
  private final AtomicInteger failuresInFlight = new AtomicInteger();

  private final MonitorPasses passes;
  private long tick;
  private Timer tickTimer = Timer.NONE;
  private boolean closed;
  /** Where decisions are shared with other router replicas; {@link VerdictBus#LOCAL} alone. */
  private volatile VerdictBus bus = VerdictBus.LOCAL;

  public HealthMonitor(
      FleetConfig config, Fleet fleet, EngineProber prober, Scheduler loop, HealthEvents events) {
    this(config, fleet, prober, loop, events, new MonitorPasses(config.controller().monitorFailureLimit(), events));
  }

  /** As above, reporting each tick to {@code passes}, which other monitoring stages share. */
  public HealthMonitor(FleetConfig config, Fleet fleet, EngineProber prober, Scheduler loop, HealthEvents events,
      MonitorPasses passes) {
    this.passes = passes;
    this.fleet = fleet;
    this.prober = prober;
    this.loop = loop;
    this.journal = new BreakerJournal(events);
    this.wave = new RestartWave(
        config.recovery().engineRestartPolicy() == EngineRestartPolicy.WHOLE_WAVE, journal);
    this.pairs = new ProbePairs(fleet);
    this.settings = BreakerSettings.of(config);
    for (EngineState e : fleet.engines()) {
      tracked.put(e.iid(), new TrackedEngine(e));
    }
  }

  /** Starts the monitor's ticks. */
  public void start() {
    loop.runInLoop(this::scheduleTick);
  }

  @Override
  public void close() {
    loop.runInLoop(() -> {
      closed = true;
      tickTimer.cancel();
      for (TrackedEngine t : tracked.values()) {
        t.cancelProbe();
      }
    });
  }

  /** Shares every later decision through {@code bus}, and probes only the engines it assigns here. */
  public void shareVerdicts(VerdictBus bus) {
    this.bus = java.util.Objects.requireNonNull(bus, "bus");
  }

  /**
   * Applies a decision another replica made about an engine (a fleet-wide verdict), on the
   * breaker's loop. A verdict that matches what this router already has changes nothing; otherwise
   * the engine leaves or rejoins placement here too, with the verdict's cause, and the journal's
   * event row names the replica that decided.
   */
  public void applyShared(EngineVerdict verdict, String byReplica) {
    loop.runInLoop(() -> {
      TrackedEngine t = tracked.get(verdict.iid());
      if (t == null || closed) {
        return;
      }
      if (verdict.condition() == EngineCondition.ACTIVE) {
        if (!t.engine.inPlacement()) {
          OutCause cause = t.cause;
          clearForReadmission(t);
          journal.readmittedElsewhere(t, cause, verdict.detail(), byReplica);
          wave.readmitted(fleet);
        }
        return;
      }
      OutCause cause = OutCause.fromWire(verdict.cause());
      if (t.engine.condition() == verdict.condition() && t.cause == cause) {
        return;
      }
      boolean wasIn = t.engine.inPlacement();
      t.engine.setCondition(verdict.condition(), cause.wireName());
      t.cause = cause;
      t.producerIid = verdict.producerIid();
      if (wasIn) {
        t.outSinceTick = tick;
      }
      journal.takenOutElsewhere(t, verdict.condition(), cause, verdict.producerIid(), verdict.detail(), byReplica);
      wave.tookOut(t.iid(), cause);
    });
  }

  // ---- reports from requests ----

  @Override
  public void prefillSucceeded(String iid) {
    succeeded(iid, Evidence.PREFILL_HANDOFF);
  }

  @Override
  public void decodeSucceeded(String iid) {
    succeeded(iid, Evidence.DECODE_DONE);
  }

  @Override
  public void legFailed(EngineFailure failure, @Nullable String producerIid) {
    failuresInFlight.incrementAndGet();
    loop.runInLoop(() -> {
      try {
        onLegFailed(failure, producerIid);
      } finally {
        failuresInFlight.decrementAndGet();
      }
    });
  }

  /**
   * Engines that failed preflight when the router serves anyway ({@code --preflight=warn}): they
   * are held out of placement, and come in only when a readmission probe passes (as an engine the
   * breaker held for a wrong answer does), so no request is sent to an engine known to fail first.
   */
  public void holdUntilReadmitted(Collection<String> iids, String why) {
    loop.runInLoop(() -> {
      for (String iid : iids) {
        TrackedEngine t = tracked.get(iid);
        if (t != null && t.engine.inPlacement()) {
          takeOut(t, EngineCondition.HELD, OutCause.PREFLIGHT, null, why);
        }
      }
    });
  }

  @Override
  public boolean admissionHeld() {
    return wave.admissionHeld();
  }

  private void succeeded(String iid, Evidence evidence) {
    EngineState e = fleet.get(iid);
    // The common case, a healthy engine with no failure on its way to the breaker, needs no hop
    // to the breaker's loop: the success would clear nothing. (Every request reports two
    // successes; from another loop each was a task and a wake-up of the breaker's thread.)
    if (e != null && failuresInFlight.get() == 0 && e.streaks().alreadyClear(evidence) && e.unreachable() == null) {
      return;
    }
    if (e != null) {
      // Through the loop like failures, so reports apply in the order they were made: a success
      // must not clear a streak before an earlier failure has been counted.
      loop.runInLoop(() -> e.answered(evidence));
    }
  }

  private void onLegFailed(EngineFailure failure, @Nullable String producerIid) {
    TrackedEngine t = tracked.get(failure.engineIid());
    if (t == null || closed) {
      return;
    }
    FailureClass cls = failure.failureClass();
    FailurePolicy.BreakerRemedy remedy = failure.rule().remedy();
    if (remedy == FailurePolicy.BreakerRemedy.COUNTS_AS_ALIVE) {
      t.engine.answered(Evidence.REJECTED_REQUEST);
      return;
    }
    if (failure.rule().provesUnreachable()) {
      // Whatever the breaker decides below (last-engine protection may keep it), readiness must
      // see that this engine cannot be reached.
      t.engine.markUnreachable(failure.getMessage());
    }
    if (!t.engine.inPlacement()) {
      // Requests already in flight when it left; the decision is made.
      return;
    }
    int streak = t.engine.streaks().recordFailure(cls);
    if (streak < settings.ejectAfter()) {
      return; // also every class the policy does not count: its streak stays 0
    }
    String why = cls.wireName() + " streak of " + streak + ": " + failure.getMessage();
    switch (remedy) {
      case EJECT -> {
        // Request evidence of every class keeps the last engine of a role: a failure a request
        // carries from engine to engine (or a blip) must not turn into an outage of the role.
        // A dead last engine stays in placement and answers 502 engine_unreachable, which is
        // what the client would learn anyway; the router's own liveness sweeps still eject it.
        if (fleet.othersCover(t.engine)) {
          takeOut(t, EngineCondition.EJECTED, OutCause.of(cls), null, why);
        } else {
          keptAsLastEngine(t, cls, why);
        }
      }
      case VERIFY_WITH_HEALTH_CHECK -> verifyHealth(t, cls, why);
      case HOLD_UNTIL_INFERENCE_PROBE -> {
        String producer = failure.phase() == Phase.DECODE && producerIid != null
            && !producerIid.equals(t.iid()) ? producerIid : null;
        hold(t, cls, producer, why);
      }
      case COUNTS_AS_ALIVE, NONE -> { } // no streak: handled above
    }
  }

  // ---- decisions ----

  private void verifyHealth(TrackedEngine t, FailureClass cls, String why) {
    if (t.probe != null) {
      return;
    }
    runProbe(t, "health", prober.health(t.engine.spec(), loop), result -> {
      journal.probe(t, "health", result.outcome(), result.detail(), null);
      if (result.passed()) {
        // A live engine that is merely slow or busy stays in placement.
        t.engine.answered(Evidence.HEALTH_OK);
      } else if (t.engine.inPlacement()) {
        String failed = why + "; health check failed: " + result.detail();
        if (fleet.othersCover(t.engine)) {
          takeOut(t, EngineCondition.EJECTED, OutCause.HEALTH_VERIFY, null, failed);
        } else {
          // A saturated last engine also fails its health check; ejecting it would turn overload
          // into an outage. Only liveness evidence ejects the last engine.
          keptAsLastEngine(t, cls, failed);
        }
      }
    });
  }

  private void hold(TrackedEngine t, FailureClass cls, @Nullable String producerIid, String why) {
    if (!fleet.othersCover(t.engine)) {
      keptAsLastEngine(t, cls, why);
      return;
    }
    takeOut(t, EngineCondition.HELD, OutCause.of(cls), producerIid, why);
  }

  /**
   * Last-engine protection: a degraded engine serves better than none. The streak starts over so
   * the decision is revisited only on fresh evidence.
   */
  private void keptAsLastEngine(TrackedEngine t, FailureClass cls, String why) {
    t.engine.streaks().reset(cls);
    journal.keptAsLastEngine(t, cls, why);
  }

  private void takeOut(TrackedEngine t, EngineCondition condition, OutCause cause, @Nullable String producerIid,
      String why) {
    t.engine.setCondition(condition, cause.wireName());
    t.cause = cause;
    t.producerIid = producerIid;
    t.outSinceTick = tick;
    journal.takenOut(t, condition, cause, producerIid, why);
    wave.tookOut(t.iid(), cause);
    bus.publish(new EngineVerdict(t.iid(), condition, cause.wireName(), producerIid, why));
  }

  private void readmit(TrackedEngine t, String how) {
    OutCause cause = t.cause;
    clearForReadmission(t);
    journal.readmitted(t, cause, how);
    wave.readmitted(fleet);
    bus.publish(new EngineVerdict(t.iid(), EngineCondition.ACTIVE, null, null, how));
  }

  /** Back in placement with every streak started over: the readmitting probe is fresh evidence. */
  private void clearForReadmission(TrackedEngine t) {
    t.engine.setCondition(EngineCondition.ACTIVE, null);
    for (FailureClass cls : FailureStreaks.COUNTED) {
      t.engine.streaks().reset(cls);
    }
    t.cause = null;
    t.producerIid = null;
    t.livenessMisses = 0;
    t.engine.answered(Evidence.HEALTH_OK);
  }

  // ---- the monitor's ticks ----

  private void scheduleTick() {
    if (!closed) {
      tickTimer = loop.schedule(this::onTick, settings.intervalNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /** The monitoring passes this breaker reports to (stage {@code health}). */
  public MonitorPasses passes() {
    return passes;
  }

  @Override
  public @Nullable String degradedReason() {
    return passes.degradedReason();
  }

  private void onTick() {
    if (closed) {
      return;
    }
    try {
      tick();
      passes.passed("health");
    } catch (RuntimeException e) {
      // A fault in one tick must not stop the breaker for good, nor pass unnoticed.
      passes.failed("health", e);
    }
    scheduleTick();
  }

  private void tick() {
    tick++;
    for (TrackedEngine t : tracked.values()) {
      // With replicas, one of them probes an engine that is out (the bus says which), not all.
      if (!t.engine.inPlacement() && t.probe == null && (tick - t.outSinceTick) % settings.readmitEvery() == 0
          && bus.probesHere(t.iid())) {
        tryReadmission(t);
      }
    }
    if (settings.livenessEvery() > 0 && tick % settings.livenessEvery() == 0) {
      for (TrackedEngine t : tracked.values()) {
        if (t.engine.inPlacement() && t.probe == null) {
          checkLiveness(t);
        }
      }
    }
  }

  private void checkLiveness(TrackedEngine t) {
    runProbe(t, "liveness", prober.health(t.engine.spec(), loop), result -> {
      if (!t.engine.inPlacement()) {
        return;
      }
      if (result.passed()) {
        t.livenessMisses = 0;
        t.engine.answered(Evidence.HEALTH_OK);
        return;
      }
      t.livenessMisses++;
      t.engine.markUnreachable("liveness check failed: " + result.detail());
      journal.probe(t, "liveness", "failed", result.detail(), null);
      if (t.livenessMisses >= settings.livenessMisses()) {
        takeOut(t, EngineCondition.EJECTED, OutCause.LIVENESS, null,
            t.livenessMisses + " liveness checks missed in a row: " + result.detail());
      }
    });
  }

  private void tryReadmission(TrackedEngine t) {
    if (settings.contractPinned()) {
      runProbe(t, "lifecycle", prober.lifecycle(t.engine.spec(), pairs.livePeers(t.engine), loop), result -> {
        Outcome verdict = result.outcomeFor(t.iid());
        journal.probe(t, "lifecycle", verdict, result.detail(), null);
        if (verdict == Outcome.FAILED) {
          keptOut(t);
        } else if (verdict == Outcome.INCONCLUSIVE) {
          return;
        } else if (t.cause != null && t.cause.needsInferenceProbe()) {
          inferenceProbe(t);
        } else {
          readmit(t, "lifecycle validation passed: " + result.detail());
        }
      });
    } else if (t.cause != null && t.cause.needsInferenceProbe()) {
      inferenceProbe(t);
    } else {
      runProbe(t, "health", prober.health(t.engine.spec(), loop), result -> {
        journal.probe(t, "health", result.outcome(), result.detail(), null);
        if (result.passed()) {
          readmit(t, "health check passed: " + result.detail());
        }
      });
    }
  }

  /**
   * Probes {@code t} with a real inference through the pair {@link ProbePairs} picks. When the
   * partner is unavailable, or the partner's own leg fails, the probe says nothing about {@code
   * t}: inconclusive.
   */
  private void inferenceProbe(TrackedEngine t) {
    ProbePairs.Pair pair = pairs.forInferenceProbe(t);
    if (pair.inconclusive() != null) {
      journal.probe(t, "inference", "inconclusive", pair.inconclusive(), t.producerIid);
      return;
    }
    EngineState p = pair.producer();
    EngineState c = pair.consumer();
    runProbe(t, "inference", prober.kvTransfer(p.spec(), c.spec(), loop), result -> {
      String names = p.iid() + " -> " + c.iid();
      // A failure blamed on the partner (its own leg failed) says nothing about this engine.
      Outcome verdict = result.outcomeFor(t.iid());
      journal.probe(t, "inference", verdict, names + ": " + result.detail(), p.iid());
      if (verdict == Outcome.PASSED) {
        readmit(t, "inference probe passed (" + names + ")");
      } else if (verdict == Outcome.FAILED) {
        keptOut(t);
      }
    });
  }

  /** A failed readmission probe: a held engine is now ejected; an ejected one stays so. */
  private void keptOut(TrackedEngine t) {
    if (t.engine.condition() == EngineCondition.HELD) {
      t.engine.setCondition(EngineCondition.EJECTED, t.engine.conditionCause());
      journal.probeFailedEjects(t);
      bus.publish(new EngineVerdict(t.iid(), EngineCondition.EJECTED, t.engine.conditionCause(), t.producerIid,
          "readmission probe failed"));
    }
  }

  private void runProbe(TrackedEngine t, String kind, CompletableFuture<CheckResult> probe,
      Consumer<CheckResult> then) {
    t.probe = probe;
    probe.whenComplete((result, error) -> loop.runInLoop(() -> {
      if (t.probe != probe || closed) {
        return;
      }
      t.probe = null;
      CheckResult r = result != null ? result : new CheckResult(kind, t.iid(), Outcome.FAILED,
          "the " + kind + " probe could not run: " + error, null, t.iid(), 0);
      then.accept(r);
    }));
  }
}
