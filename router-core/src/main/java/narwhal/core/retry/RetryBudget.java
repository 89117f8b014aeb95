package narwhal.core.retry;

/**
 * The fleet-wide pool of retry credits ({@code serving.retry_budget}, {@code
 * serving.retry_replenish}). A retry spends one whole credit; each completed request puts back
 * {@code replenish} credits, up to the budget. During an outage retries therefore dry up instead of
 * multiplying the load on engines that are already failing. Thread-safe.
 */
public final class RetryBudget {

  private static final long SCALE = 1000;

  private final long capacityMilli;
  private final long replenishMilli;
  private long availableMilli;

  public RetryBudget(double budget, double replenish) {
    this.capacityMilli = Math.round(budget * SCALE);
    this.replenishMilli = Math.round(replenish * SCALE);
    this.availableMilli = capacityMilli;
  }

  /** Takes one credit if a whole one is available. */
  public synchronized boolean tryAcquire() {
    if (availableMilli >= SCALE) {
      availableMilli -= SCALE;
      return true;
    }
    return false;
  }

  /**
   * Gives back a credit taken by {@link #tryAcquire} for a retry that never dispatched (no engine
   * was left, or the request ended during the backoff): a credit is spent only on real engine work.
   */
  public synchronized void refund() {
    availableMilli = Math.min(capacityMilli, availableMilli + SCALE);
  }

  /** A request completed: earn back part of a credit. */
  public synchronized void onSuccess() {
    availableMilli = Math.min(capacityMilli, availableMilli + replenishMilli);
  }

  public synchronized double available() {
    return availableMilli / (double) SCALE;
  }
}
