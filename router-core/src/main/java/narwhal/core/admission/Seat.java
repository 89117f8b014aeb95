package narwhal.core.admission;

import narwhal.time.Scheduler;
import narwhal.time.Timer;
import org.jspecify.annotations.Nullable;

/**
 * One request's place in {@link Admission}: seated (counted in flight), queued for a seat,
 * refused, expired in the queue, or released. State changes happen under the admission's lock;
 * callbacks run on the request's own scheduler, never inline.
 *
 * <p>The holder must {@link #release()} it exactly once on every path; further calls do nothing,
 * so cleanup code may release unconditionally.
 */
public final class Seat {

  /** Why a seat was refused outright. */
  public enum Refusal {
    /** In-flight limit reached and the queue (if any) is full: journal {@code rejected/inflight_limit}. */
    INFLIGHT_LIMIT,
    /** The router is draining for shutdown: journal {@code rejected/not_ready}. */
    DRAINING,
    /**
     * A whole-wave engine restart holds admission until every engine is back: journal {@code
     * rejected/not_ready}.
     */
    FLEET_RESTARTING,
    /**
     * The router's monitoring failed {@code controller.monitor_failure_limit} passes in a row:
     * journal {@code rejected/not_ready}.
     */
    MONITORING_DEGRADED,
    /** The caller's tenant has {@code max_in_flight} requests already: journal {@code refused/tenant_inflight}. */
    TENANT_INFLIGHT,
    /** The caller's tenant fills its {@code queue_share} of the queue: journal {@code refused/tenant_queue}. */
    TENANT_QUEUE,
    /** The caller's tenant is over its {@code rate_per_s}: journal {@code refused/tenant_rate}. */
    TENANT_RATE;

    /** True for the caller's tenant's own limits, as opposed to the fleet's. */
    public boolean tenantLimit() {
      return this == TENANT_INFLIGHT || this == TENANT_QUEUE || this == TENANT_RATE;
    }
  }

  enum State { QUEUED, SEATED, REFUSED, EXPIRED, RELEASED }

  private final Admission admission;
  final Scheduler loop;
  final long acquiredNanos;
  /**
   * The caller's tenant, whatever became of the seat: a refusal names it too (its error text and
   * journal row), while {@link #quota} is set only for a seat that counts against the tenant.
   */
  private final @Nullable String tenant;
  // Guarded by the admission's lock.
  State state;
  @Nullable Refusal refusal;
  /** For {@link Refusal#TENANT_RATE}: how long until the tenant's bucket has a token. */
  long retryAfterNanos;
  /** The caller's tenant's limits, or null for an anonymous caller. */
  @Nullable TenantQuota quota;
  long seatedNanos = -1;
  boolean wasQueued;
  Timer expiry = Timer.NONE;
  @Nullable Runnable onSeated;
  @Nullable Runnable onExpired;

  Seat(Admission admission, Scheduler loop, long acquiredNanos, @Nullable String tenant) {
    this.admission = admission;
    this.loop = loop;
    this.acquiredNanos = acquiredNanos;
    this.tenant = tenant;
  }

  /** Why the seat was refused, or null when it was granted or queued. */
  public @Nullable Refusal refusal() {
    synchronized (admission) {
      return refusal;
    }
  }

  /**
   * For a {@link Refusal#TENANT_RATE} refusal: how long until the tenant may send again
   * (nanoseconds); 0 otherwise.
   */
  public long retryAfterNanos() {
    synchronized (admission) {
      return retryAfterNanos;
    }
  }

  /** The caller's tenant (granted, queued or refused), or null for an anonymous caller. */
  public @Nullable String tenant() {
    return tenant;
  }

  public boolean isSeated() {
    synchronized (admission) {
      return state == State.SEATED;
    }
  }

  /** Waiting in the queue right now. */
  public boolean isQueued() {
    synchronized (admission) {
      return state == State.QUEUED;
    }
  }

  /**
   * Time spent waiting in the queue: until the seat was granted, or until now while it still
   * waits; null when the request never queued.
   */
  public @Nullable Long queueWaitNanos(long nowNanos) {
    synchronized (admission) {
      if (!wasQueued) {
        return null;
      }
      return (seatedNanos >= 0 ? seatedNanos : nowNanos) - acquiredNanos;
    }
  }

  /**
   * Runs {@code onSeated} on the seat's scheduler once the seat is granted (soon, if it already
   * is), or {@code onExpired} if the queue wait runs out first. Call once; on a refused or
   * released seat neither runs.
   */
  public void whenSeated(Runnable onSeated, Runnable onExpired) {
    admission.whenSeated(this, onSeated, onExpired);
  }

  /** Gives the seat (or the place in the queue) back. Idempotent. */
  public void release() {
    admission.release(this);
  }

  @Override
  public String toString() {
    synchronized (admission) {
      return "Seat{" + state + (refusal == null ? "" : ", " + refusal) + "}";
    }
  }
}
