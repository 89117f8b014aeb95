package narwhal.core.request;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;
import narwhal.config.FleetConfig;
import narwhal.core.admission.Admission;
import narwhal.core.admission.AdmissionLimits;
import narwhal.core.admission.PredictiveAdmission;
import narwhal.core.placement.PlacementCost;
import narwhal.core.admission.Seat;
import narwhal.api.AdmissionTicket;
import narwhal.api.Arrival;
import narwhal.api.Authentication;
import narwhal.api.ClientAuthenticator;
import narwhal.api.ClientSink;
import narwhal.api.CompletionService;
import narwhal.api.OffLoopPool;
import narwhal.api.RequestHandle;
import narwhal.api.RouterError;
import narwhal.time.Deadline;
import narwhal.core.tenants.TenantDirectory;
import narwhal.core.cache.CachePlacement;
import narwhal.core.fleet.Fleet;
import narwhal.core.health.EngineHealthTracker;
import narwhal.core.journal.Journal;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.metrics.Telemetry;
import narwhal.core.outcome.Terminal;
import narwhal.core.profile.ProfileBook;
import narwhal.core.retry.Backoff;
import narwhal.core.retry.RetryBudget;
import narwhal.core.trace.Tracing;
import narwhal.time.Scheduler;
import narwhal.core.legs.EngineClient;
import narwhal.proto.v1.CompletionRequest;
import org.jspecify.annotations.Nullable;

/**
 * The router: splits each request into a prefill leg and a decode leg across the fleet. Each
 * submitted request becomes a {@link RequestLifecycle} on the caller's scheduler; this class only
 * holds what they share.
 */
public final class DisaggregatedRouter implements CompletionService {

  private final RouterRuntime rt;

  public DisaggregatedRouter(
      FleetConfig config, Fleet fleet, EngineClient engines, Journal journal, Clock wallClock,
      RandomGenerator random) {
    this(config, fleet, engines, journal, wallClock, random, EngineHealthTracker.NONE);
  }

  /** A router whose requests report every leg's outcome to {@code health} (the engine breaker). */
  public DisaggregatedRouter(
      FleetConfig config, Fleet fleet, EngineClient engines, Journal journal, Clock wallClock,
      RandomGenerator random, EngineHealthTracker health) {
    this(config, fleet, engines, journal, wallClock, random, health, Telemetry.create());
  }

  /**
   * A router whose journal rows carry {@code telemetry}'s run id and whose metrics live in its
   * registry (so the caller can export them and write the same run id in the journal's meta row).
   */
  public DisaggregatedRouter(
      FleetConfig config, Fleet fleet, EngineClient engines, Journal journal, Clock wallClock,
      RandomGenerator random, EngineHealthTracker health, Telemetry telemetry) {
    this(config, fleet, engines, journal, wallClock, random, health, telemetry,
        new RouterMetrics(telemetry.registry(), config.slo()));
  }

  /** As above, recording into {@code metrics} (shared with the health monitor's event counters). */
  public DisaggregatedRouter(
      FleetConfig config, Fleet fleet, EngineClient engines, Journal journal, Clock wallClock,
      RandomGenerator random, EngineHealthTracker health, Telemetry telemetry, RouterMetrics metrics) {
    this(config, fleet, engines, journal, wallClock, random, health, telemetry, metrics, Tracing.off());
  }

  /** As above, with spans for each request and leg made through {@code tracing}. */
  public DisaggregatedRouter(
      FleetConfig config, Fleet fleet, EngineClient engines, Journal journal, Clock wallClock,
      RandomGenerator random, EngineHealthTracker health, Telemetry telemetry, RouterMetrics metrics,
      Tracing tracing) {
    RequestSettings settings = RequestSettings.from(config);
    RetryBudget retryBudget = new RetryBudget(config.serving().retryBudget(), config.serving().retryReplenish());
    Admission admission = new Admission(AdmissionLimits.from(config.serving()));
    admission.holdWhile(health::admissionHeld);
    admission.stopWhileDegraded(() -> health.degradedReason() != null);
    metrics.watchAdmission(admission);
    metrics.watchRetryBudget(retryBudget);
    metrics.watchFleet(fleet);
    TenantDirectory tenants = new TenantDirectory(config.tenants(), config.serving().queueCapacity(), metrics::authFailed);
    metrics.watchTenants(tenants.names());
    ProfileBook profiles = ProfileBook.empty();
    PlacementCost placementCost = new PlacementCost(profiles, config.slo());
    this.rt = new RouterRuntime(
        settings,
        fleet,
        engines,
        journal,
        retryBudget,
        new Backoff(settings.retryBaseNanos(), settings.retryCapNanos(), random),
        wallClock,
        health,
        admission,
        new OutcomeRecorder(telemetry.runId(), journal, metrics),
        tracing,
        profiles,
        placementCost,
        PredictiveAdmission.from(config, placementCost),
        new PromptCountBackoff(),
        tenants,
        new CachePlacement(config.cache()),
        OffLoopPool.create(),
        new java.util.concurrent.atomic.AtomicReference<>(narwhal.core.cluster.ClusterStatus.NONE));
  }

  /**
   * Joins this router to the replicas it runs with: their status counts towards readiness and
   * shows in {@code /narwhal/state}. Without it (a router alone) nothing changes.
   */
  public void attachCluster(narwhal.core.cluster.ClusterStatus status) {
    rt.cluster().set(status);
  }

  /** Every tenant's limits, for the replicas' shared tenant budgets. */
  public narwhal.core.tenants.TenantDirectory tenants() {
    return rt.tenants();
  }

  /** The engine profiles this router prices admission and placement with (empty until loaded). */
  public ProfileBook profiles() {
    return rt.profiles();
  }

  /** The projections placement and admission price with, over {@link #profiles()}. */
  public PlacementCost placementCost() {
    return rt.placementCost();
  }

  /**
   * Cache-aware placement ({@code cache}): the assembly installs its index here ({@link
   * CachePlacement#use}) and its metrics; off, it places nothing by cache.
   */
  public CachePlacement cache() {
    return rt.cache();
  }

  /** Predictive admission ({@code serving.admission}), e.g. to report unprofiled engines once profiles load. */
  public PredictiveAdmission predictiveAdmission() {
    return rt.predictive();
  }

  /**
   * Counts the arrival, computes the request's deadline once and takes an admission seat. A
   * refusal (in-flight limit, tenant limit, draining) is recorded here, so every front-end produces
   * the same journal row and metrics for it. The wait for a seat is bounded by the deadline.
   */
  @Override
  public AdmissionTicket admit(Arrival arrival) {
    rt.outcomes().metrics().offered();
    Scheduler loop = arrival.loop();
    Deadline deadline = Deadline.requestTimeout(arrival.arrivalNanos(), rt.settings().requestTimeoutNanos())
        .earliest(arrival.clientDeadline());
    Seat seat = rt.admission().acquire(loop, Math.max(0, deadline.remainingNanos(loop.nanoTime())),
        rt.tenants().quota(arrival.caller()));
    RequestTicket ticket = new RequestTicket(rt, this, arrival, deadline, seat);
    RouterError refusal = ticket.refusal();
    if (refusal != null) {
      ticket.recordRefusal();
      return new AdmissionTicket.Refused(arrival, deadline, refusal);
    }
    return new AdmissionTicket.Admitted(arrival, deadline, ticket);
  }

  @Override
  public RequestHandle submit(AdmissionTicket ticket, CompletionRequest request, ClientSink sink) {
    if (ticket instanceof AdmissionTicket.Refused refused) {
      // Already recorded by admit(); the refusal reaches the sink as for any request that ends early.
      return new RefusedRequest(refused.requestId(), refused.loop(), sink, refused.error());
    }
    // The ticket is sealed: the only other kind is Admitted, which only its issuer can take over.
    return ((AdmissionTicket.Admitted) ticket).takeOver(this).start(request, sink);
  }

  @Override
  public ClientAuthenticator authenticator() {
    return rt.tenants();
  }

  @Override
  public void rejectUnauthenticated(Arrival arrival, Authentication refused) {
    RouterError error = refused.refusal();
    if (error == null) {
      return;
    }
    // The metric was counted when the key was refused; the row says a request arrived without one.
    rt.outcomes().metrics().offered();
    rt.outcomes().record(RequestTicket.outcome(rt, Terminal.INVALID, arrival, arrival.loop().nanoTime(), null)
        .tenant(null)
        .reason("unauthenticated")
        .error(error)
        .build());
  }

  @Override
  public OffLoopPool offLoop() {
    return rt.offLoop();
  }

  @Override
  public String model() {
    return rt.settings().model();
  }

  @Override
  public boolean ready() {
    return notReadyReason() == null;
  }

  @Override
  public @Nullable String notReadyReason() {
    if (rt.admission().isDraining()) {
      return "draining: the router is shutting down";
    }
    String journal = rt.journal().notWritingReason();
    if (journal != null) {
      return "journal not writable: " + journal;
    }
    String degraded = rt.health().degradedReason();
    if (degraded != null) {
      return degraded;
    }
    String cluster = rt.cluster().get().notReadyReason();
    if (cluster != null) {
      return cluster;
    }
    if (rt.health().admissionHeld()) {
      return "whole-wave engine restart: admission is held until every engine is back (" + outOfPlacement() + ")";
    }
    if (rt.fleet().schedulable(true) == 0) {
      return "no prefill-capable engine in placement (" + outOfPlacement() + ")";
    }
    if (rt.fleet().schedulable(false) == 0) {
      return "no decode-capable engine in placement (" + outOfPlacement() + ")";
    }
    // In placement but down: the breaker may keep the last engine of a role (a request's failure
    // must not empty a role), yet every request to it fails until liveness takes it out.
    if (rt.fleet().reachable(true) == 0) {
      return "no prefill-capable engine answering (" + unreachable() + ")";
    }
    if (rt.fleet().reachable(false) == 0) {
      return "no decode-capable engine answering (" + unreachable() + ")";
    }
    return null;
  }

  @Override
  public Map<String, Object> stateDocument(Scheduler loop) {
    return StateDocument.build(rt, this, loop.nanoTime());
  }

  /** {@code "d0 unreachable: connection refused"}: engines in placement whose last contact failed. */
  private String unreachable() {
    return rt.fleet().engines().stream()
        .filter(e -> e.inPlacement() && e.unreachable() != null)
        .map(e -> e.iid() + " unreachable: " + e.unreachable())
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /** {@code "d0 ejected (connection), d1 held (stream)"}: the engines the breaker keeps out. */
  private String outOfPlacement() {
    return rt.fleet().engines().stream()
        .filter(e -> !e.inPlacement())
        .map(e -> e.iid() + " " + e.condition().wireName()
            + (e.conditionCause() == null ? "" : " (" + e.conditionCause() + ")"))
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /** Stops the off-loop pool; a decode still running finishes and its result is dropped. */
  public void close() {
    rt.offLoop().close();
  }

  /** Stops admitting for shutdown: new requests get 503 and {@link #ready()} turns false. */
  public void drain() {
    rt.admission().drain();
  }

  /** Completes once draining and no request holds or waits for an admission seat. */
  public CompletableFuture<Void> whenIdle() {
    return rt.admission().whenIdle();
  }

  public Admission admission() {
    return rt.admission();
  }

  public RouterMetrics metrics() {
    return rt.outcomes().metrics();
  }

  /** The run id on every journal row. */
  public String runId() {
    return rt.outcomes().runId();
  }

  public Fleet fleet() {
    return rt.fleet();
  }

  public RetryBudget retryBudget() {
    return rt.retryBudget();
  }

  public Tracing tracing() {
    return rt.tracing();
  }
}
