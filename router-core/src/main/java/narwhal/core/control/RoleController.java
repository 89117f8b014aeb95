package narwhal.core.control;

import java.time.Clock;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineRole;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.ArrivalTally.Arrivals;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.fleet.RoleMove;
import narwhal.core.health.JournalHealthEvents;
import narwhal.core.health.MonitorPasses;
import narwhal.core.journal.Journal;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.profile.ProfileBook;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The role controller: moves engines between the prefill and decode roles as load shifts.
 *
 * <p>Every {@code controller.monitor_interval_s} it samples the pools' loads ({@link
 * LoadSampler}), the arrivals ({@link DemandWindow}, {@link ArrivalEvidence}), what those arrivals
 * will cost each split ({@link DemandProjection}: a pool's load is the larger of measured and
 * projected) and which load conditions hold ({@link SustainedLoads}), and takes at most one pool
 * repair step ({@link FloorRepair}). At most once per {@code reactive.step_s} it evaluates: the
 * rules propose a move the reactive score must back ({@link MoveRules}); {@code
 * reactive.confirmations} evaluations in a row must agree on its direction; the guards pass it and
 * choose the engine ({@link MoveGuards}, Alg. 3). A move is {@link EngineState#assignRole}: new
 * placements follow it at once and work already resident on the engine finishes where it is. In
 * {@code controller.advisory} mode it decides and records, never moves.
 *
 * <p>Every move, and each blocked or advisory decision when it first appears, is a journal event
 * row ({@code controller_decision}); moves are also kept for {@code /narwhal/state} (the fleet's
 * {@link narwhal.core.fleet.RoleHistory}) and counted in metrics ({@link ControllerMetrics}).
 *
 * <p>All state is confined to {@code loop}. It shares the health monitor's loop in the server, so
 * a breaker decision and a role move never interleave.
 */
public final class RoleController implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RoleController.class);

  private final ControllerSettings settings;
  private final Fleet fleet;
  private final ProfileBook profiles;
  private final Scheduler loop;
  private final ControllerJournal journal;
  private final ControllerMetrics metrics;
  private final LoadSampler sampler;
  private final DemandWindow demand;
  private final ArrivalEvidence evidence;
  private final SustainedLoads sustained;
  private final MoveLedger ledger;
  private final MoveRules rules;
  private final MoveGuards guards;
  private final FloorRepair repair;
  private final MonitorPasses passes;

  private long lastEvaluationNanos;
  /** The direction the last evaluations agreed on, and how many in a row. */
  private @Nullable Direction agreeing;
  private int agreed;
  private Timer tickTimer = Timer.NONE;
  private boolean closed;
  /** Who decides and where moves are committed; {@link RoleAuthority#LOCAL} for a router alone. */
  private volatile RoleAuthority authority = RoleAuthority.LOCAL;
  /** A move sent to be committed and not yet answered: no other decision until it is. */
  private boolean committing;
  /** The status this controller shows while it decides ({@code active} or {@code advisory}). */
  private String decidingStatus = "active";

  public RoleController(FleetConfig config, Fleet fleet, ProfileBook profiles, Scheduler loop, Journal journal,
      Clock wallClock, RouterMetrics metrics) {
    this(config, fleet, profiles, loop, journal, wallClock, metrics,
        new MonitorPasses(config.controller().monitorFailureLimit(), new JournalHealthEvents(journal, wallClock)));
  }

  /** As above, reporting each pass to {@code passes} (stage {@code controller}), shared with the breaker. */
  public RoleController(FleetConfig config, Fleet fleet, ProfileBook profiles, Scheduler loop, Journal journal,
      Clock wallClock, RouterMetrics metrics, MonitorPasses passes) {
    this.passes = passes;
    this.settings = ControllerSettings.of(config);
    this.fleet = fleet;
    this.profiles = profiles;
    this.loop = loop;
    this.journal = new ControllerJournal(journal, wallClock);
    this.metrics = new ControllerMetrics(metrics, fleet);
    long now = loop.nanoTime();
    var reactive = settings.reactive();
    this.sampler = new LoadSampler(settings);
    this.demand = new DemandWindow(settings.windowNanos(), reactive.minArrivals(), now);
    this.evidence = new ArrivalEvidence(settings.evidenceSpanNanos(), settings.evidenceMaxSpanNanos(),
        reactive.evidenceMinArrivals(), now);
    this.sustained = new SustainedLoads(settings.thresholds().expand(), settings.thresholds().shrink());
    this.ledger = new MoveLedger(settings.dwellNanos(), settings.reversalWindowNanos());
    this.rules = new MoveRules(settings, new SplitScorer(settings));
    this.guards = new MoveGuards(settings, ledger);
    this.repair = new FloorRepair(settings);
    this.lastEvaluationNanos = now;
  }

  /**
   * Why the controller has nothing to do on this fleet, or null when it runs: it only moves
   * engines whose role is {@code prefill} or {@code decode} and that are not pinned.
   */
  public static @Nullable String whyOff(Fleet fleet) {
    for (EngineState e : fleet.engines()) {
      if (!e.spec().pin() && e.role() != EngineRole.BOTH) {
        return null;
      }
    }
    return "no engine may move: every engine is pinned or has role both";
  }

  /**
   * Decides only while {@code authority} says so and commits every move through it (active-active
   * replicas: the elected controller decides, the others keep their load windows current and
   * follow). Call before {@link #start}.
   */
  public void decideThrough(RoleAuthority authority) {
    this.authority = java.util.Objects.requireNonNull(authority, "authority");
  }

  /**
   * Applies a role move the elected controller of another replica committed (or this one's own,
   * seen again): placement follows it at once, it shows in {@code /narwhal/state}, and the guards
   * remember it should this replica be elected later. A move that changes nothing is ignored.
   */
  public void applyShared(String iid, EngineRole to, String rule, boolean reversal, String byReplica,
      boolean ownMove) {
    loop.runInLoop(() -> {
      EngineState engine = fleet.get(iid);
      if (engine == null || engine.role() == to) {
        return;
      }
      EngineRole from = engine.role();
      engine.assignRole(to);
      if (ownMove) {
        return; // this replica's own commit callback records it
      }
      ledger.moved(iid, from, to, loop.nanoTime());
      fleet.roleHistory().record(new RoleMove(journal.nowEpochSeconds(), iid, from, to, rule, reversal),
          settings.controller().flipHistory());
      journal.appliedShared(iid, from, to, rule, byReplica);
      startOver();
    });
  }

  /** Starts the ticks; returns false (and logs why, once) when the controller is off. */
  public boolean start() {
    String off = whyOff(fleet);
    if (off != null) {
      fleet.roleHistory().status("off: " + off);
      log.info("role controller off: {}", off);
      return false;
    }
    boolean advisory = settings.controller().advisory();
    decidingStatus = advisory ? "advisory" : "active";
    fleet.roleHistory().status(statusNow());
    log.info("role controller {}: sampling every {} s, evaluating at most every {} s{}",
        advisory ? "advisory (decides and records, never moves)" : "active",
        settings.controller().monitorIntervalS(), settings.reactive().stepS(),
        profiles.isEmpty() ? "; no engine is profiled yet, so only pool repairs can move engines" : "");
    loop.runInLoop(this::scheduleTick);
    return true;
  }

  @Override
  public void close() {
    loop.runInLoop(() -> {
      closed = true;
      tickTimer.cancel();
    });
  }

  private void scheduleTick() {
    if (!closed) {
      tickTimer = loop.schedule(this::onTick, settings.monitorIntervalNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private void onTick() {
    if (closed) {
      return;
    }
    try {
      pass(loop.nanoTime());
      passes.passed("controller");
    } catch (RuntimeException e) {
      // A fault in one pass must not stop the controller for good: the next tick starts afresh.
      // Enough of them in a row set the router degraded (controller.monitor_failure_limit).
      passes.failed("controller", e);
    }
    scheduleTick();
  }

  /** {@code active}/{@code advisory} while deciding, else {@code following: <why>}. */
  private String statusNow() {
    String following = authority.mayDecide() ? null : authority.followingReason();
    return following == null ? decidingStatus : "following: " + following;
  }

  private void pass(long now) {
    boolean deciding = authority.mayDecide();
    String status = statusNow();
    if (!status.equals(fleet.roleHistory().status())) {
      fleet.roleHistory().status(status);
    }
    PoolLoads measured = sampler.sample(fleet.engines(), profiles);
    Arrivals arrived = fleet.arrivals().drain();
    demand.add(now, arrived);
    evidence.add(now, arrived);
    Demand d = demand.demand(now);
    DemandProjection projected = DemandProjection.of(d, measured.prefill(), measured.decode());
    // The rules and the metrics see what the arriving demand will put on the pools, not only what
    // they hold now: measured loads lag a change of mix by a stream's lifetime.
    PoolLoads loads = measured.withDemand(projected, settings.reactive().utilization(), settings.slo().tpotS());
    metrics.loads(loads);
    metrics.evidence(evidence.latest());
    sustained.observe(loads);
    if (!deciding || committing) {
      // A follower keeps its windows current (so it can act at once if elected) but decides
      // nothing; the leader decides nothing while its last move waits to be committed.
      return;
    }
    if (repairPools(loads, now)) {
      return; // one move per pass: the evaluation sees the repaired pools next time
    }
    if (now - lastEvaluationNanos >= settings.stepNanos()) {
      lastEvaluationNanos = now;
      evaluate(loads, d, projected, now);
    }
  }

  /** Takes this pass's repair step, if any; true when it moved an engine. */
  private boolean repairPools(PoolLoads loads, long now) {
    RepairStep step = repair.next(fleet.engines());
    if (step == null) {
      return false;
    }
    EngineState engine = step.engine();
    if (engine == null) {
      EngineRole donor = step.to() == EngineRole.PREFILL ? EngineRole.DECODE : EngineRole.PREFILL;
      note(new Decision(Outcome.BLOCKED, null, donor, step.to(), step.rule(), loads, null, null, step.blockedBy(),
          false, step.candidate()));
      return false;
    }
    EngineRole from = engine.role();
    if (settings.controller().advisory()) {
      note(new Decision(Outcome.ADVISORY, engine.iid(), from, step.to(), step.rule(), loads, null, null, null, false));
      return false;
    }
    move(engine, step.to(), step.rule(), loads, null, null, now, () -> repair.applied(step, from));
    return true;
  }

  private void evaluate(PoolLoads loads, Demand d, DemandProjection projected, long now) {
    if (!loads.priced()) {
      agreeing = null;
      agreed = 0;
      metrics.decision(Outcome.UNPRICED);
      return;
    }
    var reactive = settings.reactive();
    boolean steady = d.scored() && d.rate() >= reactive.demandFloor()
        && evidence.steady(reactive.demandRiseTolerance());
    Proposal p = rules.propose(loads, sustained, steady, projected);
    if (p == null) {
      agreeing = null;
      agreed = 0;
      journal.quiet();
      metrics.decision(Outcome.STEADY);
      return;
    }
    agreed = p.direction() == agreeing ? agreed + 1 : 1;
    agreeing = p.direction();
    if (agreed < reactive.confirmations()) {
      metrics.decision(Outcome.PENDING);
      return;
    }
    MoveGuards.Verdict verdict = guards.check(p, loads, fleet.engines(), evidence, now);
    EngineState engine = verdict.engine();
    Direction dir = p.direction();
    if (engine == null) {
      // Confirmations stand: the move goes ahead as soon as the guard lets it.
      metrics.decision(Outcome.BLOCKED);
      journal.record(new Decision(Outcome.BLOCKED, null, dir.from(), dir.to(), p.rule(), loads, p.before(),
          p.after(), verdict.blocker(), false, verdict.candidate() == null ? null : verdict.candidate().iid()));
      return;
    }
    if (settings.controller().advisory()) {
      metrics.decision(Outcome.ADVISORY);
      journal.record(new Decision(Outcome.ADVISORY, engine.iid(), dir.from(), dir.to(), p.rule(), loads, p.before(),
          p.after(), null, false));
      startOver();
      return;
    }
    move(engine, dir.to(), p.rule(), loads, p.before(), p.after(), now, () -> { });
  }

  /**
   * Commits one move through the authority and, once committed, applies and records it. Alone the
   * commit is immediate; with replicas it is a fenced write answered later on another thread, and
   * no other decision is taken meanwhile.
   */
  private void move(EngineState engine, EngineRole to, MoveRule rule, PoolLoads loads, @Nullable SplitScore before,
      @Nullable SplitScore after, long now, Runnable onApplied) {
    EngineRole from = engine.role();
    RoleMove proposed = new RoleMove(journal.nowEpochSeconds(), engine.iid(), from, to, rule.wireName(),
        ledger.wouldReverse(engine.iid(), from, to, now));
    java.util.concurrent.CompletableFuture<Boolean> commit = authority.commit(proposed);
    if (commit.isDone() && !commit.isCompletedExceptionally()) {
      if (commit.join()) {
        apply(engine, from, to, rule, loads, before, after, now);
        onApplied.run();
      }
      return;
    }
    committing = true;
    commit.whenComplete((committed, error) -> loop.runInLoop(() -> {
      committing = false;
      if (closed) {
        return;
      }
      if (Boolean.TRUE.equals(committed)) {
        apply(engine, from, to, rule, loads, before, after, loop.nanoTime());
        onApplied.run();
      } else {
        log.warn("role controller: move {} {} -> {} not committed ({}); nothing moved", engine.iid(),
            from.configName(), to.configName(), error == null ? "this replica no longer leads" : error.toString());
        startOver();
      }
    }));
  }

  /** Applies one committed move and records it everywhere. */
  private void apply(EngineState engine, EngineRole from, EngineRole to, MoveRule rule, PoolLoads loads,
      @Nullable SplitScore before, @Nullable SplitScore after, long now) {
    engine.assignRole(to);
    boolean reversal = ledger.moved(engine.iid(), from, to, now);
    fleet.roleHistory().record(new RoleMove(journal.nowEpochSeconds(), engine.iid(), from, to, rule.wireName(),
        reversal), settings.controller().flipHistory());
    metrics.flip(from, to, reversal);
    metrics.decision(Outcome.MOVED);
    journal.record(new Decision(Outcome.MOVED, engine.iid(), from, to, rule, loads, before, after, null, reversal));
    startOver();
  }

  /** After a decision is taken: the loads that led to it describe a split that is gone. */
  private void startOver() {
    sustained.reset();
    agreeing = null;
    agreed = 0;
  }

  /** A repair decision that did not move: counted and journaled once per run of repeats. */
  private void note(Decision d) {
    if (journal.record(d)) {
      metrics.decision(d.outcome());
    }
  }
}
