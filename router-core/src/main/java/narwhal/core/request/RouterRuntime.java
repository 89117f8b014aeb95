package narwhal.core.request;

import narwhal.core.profile.ProfileBook;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicReference;
import narwhal.core.cluster.ClusterStatus;
import narwhal.core.admission.Admission;
import narwhal.core.admission.PredictiveAdmission;
import narwhal.core.placement.PlacementCost;
import narwhal.core.fleet.Fleet;
import narwhal.core.health.EngineHealthTracker;
import narwhal.core.journal.Journal;
import narwhal.core.retry.Backoff;
import narwhal.core.retry.RetryBudget;
import narwhal.core.legs.EngineClient;
import narwhal.core.tenants.TenantDirectory;
import narwhal.api.OffLoopPool;
import narwhal.core.trace.Tracing;
import narwhal.core.cache.CachePlacement;

/** What every request of one router shares. */
record RouterRuntime(
    RequestSettings settings,
    Fleet fleet,
    EngineClient engines,
    Journal journal,
    RetryBudget retryBudget,
    Backoff backoff,
    Clock wallClock,
    EngineHealthTracker health,
    Admission admission,
    OutcomeRecorder outcomes,
    Tracing tracing,
    ProfileBook profiles,
    PlacementCost placementCost,
    PredictiveAdmission predictive,
    PromptCountBackoff countBackoff,
    TenantDirectory tenants,
    CachePlacement cache,
    OffLoopPool offLoop,
    /** The replicas this router runs with ({@link ClusterStatus#NONE} alone); set once at assembly. */
    AtomicReference<ClusterStatus> cluster) {

  /** Wall-clock arrival time: the wall clock now, less the time elapsed on the monotonic clock. */
  double arrivalEpochSeconds(long arrivalNanos, long nowNanos) {
    return (wallClock.millis() - (nowNanos - arrivalNanos) / 1_000_000L) / 1000.0;
  }
}
