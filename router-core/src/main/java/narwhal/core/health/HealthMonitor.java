package narwhal.core.health;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import narwhal.core.checks.EngineProber;
import narwhal.config.EngineRestartPolicy;
import narwhal.config.EngineSpec;
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
import narwhal.spi.Phase;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine breaker and its readmission loop.
 *
 * <p>Requests report every leg's outcome ({@link EngineHealthTracker}). When one engine's streak
 * in one class reaches {@code recovery.eject_after}:
 *
 * <ul>
 *   <li>connection: eject at once;
 *   <li>timeout, overload: verify with a health check, eject only if it fails;
 *   <li>stream, inference_status, kv_handoff: hold out of placement until an inference probe passes.
 * </ul>
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
 * <p>The last engine in placement for a role stays there unless it went away (connection or
 * liveness): holding it would turn a degraded service into none.
 *
 * <p>All state is confined to {@code loop}; reports from other threads hop onto it.
 */
public final class HealthMonitor implements EngineHealthTracker, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HealthMonitor.class);

  private final Fleet fleet;
  private final EngineProber prober;
  private final Scheduler loop;
  private final HealthEvents events;
  private final int ejectAfter;
  private final int readmitEvery;
  private final int livenessEvery;
  private final int livenessMisses;
  private final long intervalNanos;
  private final boolean contractPinned;
  private final boolean wholeWave;
  private final Map<String, Tracked> tracked = new LinkedHashMap<>();
  /** Failure reports made but not yet applied on the breaker's loop (successes wait behind them). */
  private final AtomicInteger failuresInFlight = new AtomicInteger();

  private long tick;
  private Timer tickTimer = Timer.NONE;
  private boolean closed;
  /** Read by admission from any thread. */
  private volatile boolean waveHeld;
  /** The engines that went away during the current restart wave and are not back yet. */
  private final java.util.Set<String> waveDeparted = new java.util.HashSet<>();

  public HealthMonitor(
      FleetConfig config, Fleet fleet, EngineProber prober, Scheduler loop, HealthEvents events) {
    this.fleet = fleet;
    this.prober = prober;
    this.loop = loop;
    this.events = events;
    this.ejectAfter = Math.max(1, config.recovery().ejectAfter());
    this.readmitEvery = Math.max(1, config.recovery().readmitEvery());
    this.livenessEvery = config.recovery().livenessEvery();
    this.livenessMisses = Math.max(1, config.recovery().livenessMisses());
    this.intervalNanos = Math.max(1L, (long) (config.controller().monitorIntervalS() * 1e9));
    this.contractPinned = config.engineContract() != null;
    this.wholeWave = config.recovery().engineRestartPolicy() == EngineRestartPolicy.WHOLE_WAVE;
    for (EngineState e : fleet.engines()) {
      tracked.put(e.iid(), new Tracked(e));
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
      for (Tracked t : tracked.values()) {
        t.cancelProbe();
      }
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

  @Override
  public boolean admissionHeld() {
    return waveHeld;
  }

  private void succeeded(String iid, Evidence evidence) {
    EngineState e = fleet.get(iid);
    // The common case, a healthy engine with no failure on its way to the breaker, needs no hop
    // to the breaker's loop: the success would clear nothing. (Every request reports two
    // successes; from another loop each was a task and a wake-up of the breaker's thread.)
    if (e != null && failuresInFlight.get() == 0 && e.streaks().alreadyClear(evidence)) {
      return;
    }
    if (e != null) {
      // Through the loop like failures, so reports apply in the order they were made: a success
      // must not clear a streak before an earlier failure has been counted.
      loop.runInLoop(() -> e.streaks().recordSuccess(evidence));
    }
  }

  private void onLegFailed(EngineFailure failure, @Nullable String producerIid) {
    Tracked t = tracked.get(failure.engineIid());
    if (t == null || closed) {
      return;
    }
    if (failure.failureClass() == FailureClass.REJECTED) {
      t.engine.streaks().recordSuccess(Evidence.REJECTED_REQUEST);
      return;
    }
    if (!t.engine.inPlacement()) {
      // Requests already in flight when it left; the decision is made.
      return;
    }
    int streak = t.engine.streaks().recordFailure(failure.failureClass());
    if (streak < ejectAfter) {
      return;
    }
    FailureClass cls = failure.failureClass();
    switch (cls) {
      case CONNECTION -> takeOut(t, EngineCondition.EJECTED, OutCause.CONNECTION, null,
          cls.wireName() + " streak of " + streak + ": " + failure.getMessage());
      case TIMEOUT, OVERLOAD -> verifyHealth(t, cls, streak, failure.getMessage());
      default -> {
        String producer = failure.phase() == Phase.DECODE && producerIid != null
            && !producerIid.equals(t.engine.iid()) ? producerIid : null;
        hold(t, OutCause.of(cls), producer, cls.wireName() + " streak of " + streak + ": " + failure.getMessage());
      }
    }
  }

  // ---- decisions ----

  private void verifyHealth(Tracked t, FailureClass cls, int streak, String lastFailure) {
    if (t.probe != null) {
      return;
    }
    String why = cls.wireName() + " streak of " + streak + ": " + lastFailure;
    runProbe(t, "health", prober.health(t.engine.spec(), loop), result -> {
      probeEvent(t, "health", outcome(result), result.detail(), null);
      if (result.passed()) {
        // A live engine that is merely slow or busy stays in placement.
        t.engine.streaks().recordSuccess(Evidence.HEALTH_OK);
      } else if (t.engine.inPlacement()) {
        String failed = why + "; health check failed: " + result.detail();
        if (fleet.othersCover(t.engine)) {
          takeOut(t, EngineCondition.EJECTED, OutCause.HEALTH_VERIFY, null, failed);
        } else {
          // A saturated last engine also fails its health check; ejecting it would turn overload
          // into an outage. Only connection and liveness evidence eject the last engine.
          keptAsLastEngine(t, cls, failed);
        }
      }
    });
  }

  private void hold(Tracked t, OutCause cause, @Nullable String producerIid, String why) {
    if (!fleet.othersCover(t.engine)) {
      keptAsLastEngine(t, classOf(cause), why);
      return;
    }
    takeOut(t, EngineCondition.HELD, cause, producerIid, why);
  }

  /**
   * Last-engine protection: a degraded engine serves better than none. The streak starts over so
   * the decision is revisited only on fresh evidence.
   */
  private void keptAsLastEngine(Tracked t, FailureClass cls, String why) {
    t.engine.streaks().reset(cls);
    Map<String, Object> f = fields(t);
    f.put("class", cls.wireName());
    f.put("detail", why + "; kept in placement as the last engine for its role");
    events.record("hold_skipped", f);
    log.warn("engine {} kept in placement ({}): it is the last engine in placement for its role", t.engine.iid(), why);
  }

  private void takeOut(Tracked t, EngineCondition condition, OutCause cause, @Nullable String producerIid, String why) {
    t.engine.setCondition(condition, cause.wireName());
    t.cause = cause;
    t.producerIid = producerIid;
    t.outSinceTick = tick;
    Map<String, Object> f = fields(t);
    f.put("cause", cause.wireName());
    if (producerIid != null) {
      f.put("producer_iid", producerIid);
    }
    f.put("detail", why);
    String event = condition == EngineCondition.HELD ? "engine_held" : "engine_ejected";
    events.record(event, f);
    log.warn("engine {} {} ({}): {}", t.engine.iid(), condition.wireName(), cause.wireName(), why);
    if (wholeWave && cause.isDeparture()) {
      waveDeparted.add(t.engine.iid());
    }
    if (wholeWave && cause.isDeparture() && !waveHeld) {
      waveHeld = true;
      Map<String, Object> w = new LinkedHashMap<>();
      w.put("iid", t.engine.iid());
      w.put("detail", "engine " + t.engine.iid() + " went away; admission held until every engine is back");
      events.record("wave_hold", w);
      log.warn("whole-wave restart: admission held until every engine is back");
    }
  }

  private void readmit(Tracked t, String how) {
    OutCause cause = t.cause;
    t.engine.setCondition(EngineCondition.ACTIVE, null);
    // The probe that readmitted it is fresh evidence on every count: start all streaks over.
    for (FailureClass cls : FailureStreaks.COUNTED) {
      t.engine.streaks().reset(cls);
    }
    t.cause = null;
    t.producerIid = null;
    t.livenessMisses = 0;
    Map<String, Object> f = fields(t);
    f.put("cause", cause == null ? null : cause.wireName());
    f.put("detail", how);
    events.record("readmitted", f);
    log.info("engine {} readmitted: {}", t.engine.iid(), how);
    releaseWaveIfAllBack();
  }

  /** The wave ends when every engine that went away during it is back in placement. */
  private void releaseWaveIfAllBack() {
    waveDeparted.removeIf(iid -> fleet.get(iid).inPlacement());
    if (waveHeld && waveDeparted.isEmpty()) {
      waveHeld = false;
      events.record("wave_release", new LinkedHashMap<>(Map.of("detail", "every engine is back; admission resumes")));
      log.info("whole-wave restart over: admission resumes");
    }
  }

  // ---- the monitor's ticks ----

  private void scheduleTick() {
    if (!closed) {
      tickTimer = loop.schedule(this::onTick, intervalNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void onTick() {
    if (closed) {
      return;
    }
    tick++;
    for (Tracked t : tracked.values()) {
      if (!t.engine.inPlacement() && t.probe == null && (tick - t.outSinceTick) % readmitEvery == 0) {
        tryReadmission(t);
      }
    }
    if (livenessEvery > 0 && tick % livenessEvery == 0) {
      for (Tracked t : tracked.values()) {
        if (t.engine.inPlacement() && t.probe == null) {
          checkLiveness(t);
        }
      }
    }
    scheduleTick();
  }

  private void checkLiveness(Tracked t) {
    runProbe(t, "liveness", prober.health(t.engine.spec(), loop), result -> {
      if (!t.engine.inPlacement()) {
        return;
      }
      if (result.passed()) {
        t.livenessMisses = 0;
        t.engine.streaks().recordSuccess(Evidence.HEALTH_OK);
        return;
      }
      t.livenessMisses++;
      probeEvent(t, "liveness", "failed", result.detail(), null);
      if (t.livenessMisses >= livenessMisses) {
        takeOut(t, EngineCondition.EJECTED, OutCause.LIVENESS, null,
            t.livenessMisses + " liveness checks missed in a row: " + result.detail());
      }
    });
  }

  private void tryReadmission(Tracked t) {
    if (contractPinned) {
      runProbe(t, "lifecycle", prober.lifecycle(t.engine.spec(), livePeers(t.engine), loop), result -> {
        Outcome verdict = result.outcomeFor(t.engine.iid());
        probeEvent(t, "lifecycle", outcome(verdict), result.detail(), null);
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
        probeEvent(t, "health", outcome(result), result.detail(), null);
        if (result.passed()) {
          t.engine.streaks().recordSuccess(Evidence.HEALTH_OK);
          readmit(t, "health check passed: " + result.detail());
        }
      });
    }
  }

  /**
   * Probes {@code t} with a real inference. After a crossed-decode failure the decode uses a new
   * handoff from the original producer; otherwise the partner is the least-loaded engine in
   * placement for the other phase. When the partner is unavailable, or the partner's own leg
   * fails, the probe says nothing about {@code t}: inconclusive.
   */
  private void inferenceProbe(Tracked t) {
    EngineState target = t.engine;
    EngineState producer;
    EngineState consumer;
    if (t.producerIid != null) {
      producer = fleet.get(t.producerIid);
      consumer = target;
      if (producer == null || !producer.inPlacement()) {
        probeEvent(t, "inference", "inconclusive",
            "original producer " + t.producerIid + " is not in placement", t.producerIid);
        return;
      }
    } else if (target.spec().role().canPrefill()) {
      producer = target;
      consumer = target.spec().role().canDecode() ? target : partner(target, false);
    } else {
      producer = partner(target, true);
      consumer = target;
    }
    if (producer == null || consumer == null) {
      probeEvent(t, "inference", "inconclusive",
          "no engine in placement to pair with for the probe", null);
      return;
    }
    EngineState p = producer;
    EngineState c = consumer;
    runProbe(t, "inference", prober.kvTransfer(p.spec(), c.spec(), loop), result -> {
      String pair = p.iid() + " -> " + c.iid();
      // A failure blamed on the partner (its own leg failed) says nothing about this engine.
      Outcome verdict = result.outcomeFor(target.iid());
      probeEvent(t, "inference", outcome(verdict), pair + ": " + result.detail(), p.iid());
      if (verdict == Outcome.PASSED) {
        readmit(t, "inference probe passed (" + pair + ")");
      } else if (verdict == Outcome.FAILED) {
        keptOut(t);
      }
    });
  }

  /** A failed readmission probe: a held engine is now ejected; an ejected one stays so. */
  private void keptOut(Tracked t) {
    if (t.engine.condition() == EngineCondition.HELD) {
      t.engine.setCondition(EngineCondition.EJECTED, t.engine.conditionCause());
      Map<String, Object> f = fields(t);
      f.put("cause", t.cause == null ? null : t.cause.wireName());
      f.put("detail", "readmission probe failed");
      events.record("engine_ejected", f);
      log.warn("engine {} ejected: its readmission probe failed", t.engine.iid());
    }
  }

  private @Nullable EngineState partner(EngineState target, boolean prefill) {
    return fleet.engines().stream()
        .filter(e -> e != target && e.inPlacement())
        .filter(e -> prefill ? e.spec().role().canPrefill() : e.spec().role().canDecode())
        .min(Comparator.comparingInt(EngineState::residentWork).thenComparing(EngineState::iid))
        .orElse(null);
  }

  private List<EngineSpec> livePeers(EngineState engine) {
    return fleet.engines().stream().filter(e -> e != engine && e.inPlacement()).map(EngineState::spec).toList();
  }

  private static String outcome(CheckResult result) {
    return outcome(result.outcome());
  }

  private static String outcome(Outcome verdict) {
    return verdict.name().toLowerCase(java.util.Locale.ROOT);
  }

  private void runProbe(Tracked t, String kind, CompletableFuture<CheckResult> probe, Consumer<CheckResult> then) {
    t.probe = probe;
    probe.whenComplete((result, error) -> loop.runInLoop(() -> {
      if (t.probe != probe || closed) {
        return;
      }
      t.probe = null;
      CheckResult r = result != null ? result : new CheckResult(kind, t.engine.iid(), Outcome.FAILED,
          "the " + kind + " probe could not run: " + error, null, t.engine.iid(), 0);
      then.accept(r);
    }));
  }

  private void probeEvent(Tracked t, String probe, String outcome, String detail, @Nullable String producerIid) {
    Map<String, Object> f = fields(t);
    f.put("probe", probe);
    f.put("outcome", outcome);
    if (producerIid != null) {
      f.put("producer_iid", producerIid);
    }
    f.put("detail", detail);
    events.record("probe", f);
  }

  private static Map<String, Object> fields(Tracked t) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("iid", t.engine.iid());
    f.put("state", t.engine.condition().wireName());
    return f;
  }

  private static FailureClass classOf(@Nullable OutCause cause) {
    if (cause == null) {
      return FailureClass.CONNECTION;
    }
    return switch (cause) {
      case CONNECTION, LIVENESS -> FailureClass.CONNECTION;
      case HEALTH_VERIFY -> FailureClass.TIMEOUT;
      case STREAM -> FailureClass.STREAM;
      case INFERENCE_STATUS -> FailureClass.INFERENCE_STATUS;
      case KV_HANDOFF -> FailureClass.KV_HANDOFF;
    };
  }

  /** Breaker bookkeeping for one engine, confined to the monitor's loop. */
  private static final class Tracked {
    final EngineState engine;
    @Nullable OutCause cause;
    @Nullable String producerIid;
    long outSinceTick;
    int livenessMisses;
    @Nullable CompletableFuture<CheckResult> probe;

    Tracked(EngineState engine) {
      this.engine = engine;
    }

    void cancelProbe() {
      if (probe != null) {
        probe.cancel(false);
        probe = null;
      }
    }
  }
}
