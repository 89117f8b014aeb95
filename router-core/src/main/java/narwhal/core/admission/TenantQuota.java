package narwhal.core.admission;

import org.jspecify.annotations.Nullable;

/**
 * One tenant's own limits inside {@link Admission}: how many of its requests may hold or wait for
 * a seat at once, how many may wait in the fleet's queue (its share of {@code
 * serving.queue_capacity}, so one tenant cannot fill the queue ahead of the others), and its
 * request rate. Checked before the fleet's limits: a tenant over its own limit is refused without
 * taking anything from the others. Counters are guarded by the admission's lock.
 */
public final class TenantQuota {

  private final String tenant;
  private final int maxInFlight;
  private final int maxQueued;
  private final @Nullable TokenBucket rate;
  // Guarded by the admission's lock.
  int held;
  int queued;
  /**
   * The seats this router may give the tenant: {@code maxInFlight} alone; with replicas, this
   * router's share of it ({@link Admission#resizeTenantSeats}).
   */
  int seatLimit;
  /** Told when a request is refused at this router's share (replicas rebalance shares on demand). */
  private volatile ShareDemand demand = ShareDemand.NONE;

  /**
   * @param maxInFlight its requests seated or queued at once; 0 for no limit of its own
   * @param maxQueued its requests waiting in the fleet's queue at once
   * @param rate its request rate, or null for none
   */
  public TenantQuota(String tenant, int maxInFlight, int maxQueued, @Nullable TokenBucket rate) {
    this.tenant = tenant;
    this.maxInFlight = maxInFlight;
    this.maxQueued = maxQueued;
    this.rate = rate;
    this.seatLimit = maxInFlight;
  }

  /** The tenant's rate bucket, or null when it has no rate limit. */
  public @Nullable TokenBucket rate() {
    return rate;
  }

  /** Where refusals at this router's share are reported (replicas: the tenant-budget leases). */
  public void reportDemandTo(ShareDemand demand) {
    this.demand = java.util.Objects.requireNonNull(demand, "demand");
  }

  ShareDemand demand() {
    return demand;
  }

  public String tenant() {
    return tenant;
  }

  public int maxInFlight() {
    return maxInFlight;
  }

  public int maxQueued() {
    return maxQueued;
  }

  boolean atInFlightLimit() {
    return maxInFlight > 0 && held >= seatLimit;
  }

  boolean queueShareFull() {
    return queued >= maxQueued;
  }

  /** 0 when a token was taken (or there is no rate limit), else nanoseconds until one is due. */
  long takeToken(long nowNanos) {
    return rate == null ? 0 : rate.tryTake(nowNanos);
  }
}
