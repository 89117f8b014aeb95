package narwhal.core.retry;

import java.util.random.RandomGenerator;

/**
 * The wait before a retry ({@code serving.retry_base_s}, {@code serving.retry_cap_s}): before retry
 * {@code n} (1-based) a uniform time in {@code [base, max(base, min(cap, base * 2^n))]}, so always
 * between the base and the cap, with the upper end also capped by the time the request has left.
 *
 * <p>The floor is deliberate (the Python reference drew from {@code [0, ...]}): a burst of
 * failures, e.g. an engine dropping all its connections at once, must not turn into a burst of
 * instant retries on the rest of the fleet. The jitter above the floor spreads those retries out.
 *
 * <p>A retry whose floor does not fit before the deadline is not started: it would begin with no
 * time left and could only end as a deadline 504, hiding the failure that caused it.
 */
public final class Backoff {

  /** {@link #delayNanos}'s answer when the time left cannot hold the backoff floor. */
  public static final long NO_TIME_LEFT = -1;

  private final long baseNanos;
  private final long capNanos;
  private final RandomGenerator random;

  /** @param random the jitter source; tests pass a scripted one to make delays exact */
  public Backoff(long baseNanos, long capNanos, RandomGenerator random) {
    if (baseNanos < 0 || capNanos < 0) {
      throw new IllegalArgumentException("backoff base and cap must be >= 0, got " + baseNanos + " and " + capNanos);
    }
    this.baseNanos = baseNanos;
    this.capNanos = capNanos;
    this.random = random;
  }

  /**
   * The wait before retry {@code retry} (1 for the first retry), or {@link #NO_TIME_LEFT} when
   * {@code remainingNanos} (the time left before the request's deadline) is not more than the
   * base: the retry is then not permitted. Otherwise the result is at least the base and strictly
   * less than {@code remainingNanos}, so the retry starts with time left to run.
   */
  public long delayNanos(int retry, long remainingNanos) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry numbers start at 1, got " + retry);
    }
    if (remainingNanos <= baseNanos) {
      return NO_TIME_LEFT;
    }
    long ceiling = Math.max(baseNanos, Math.min(capNanos, doubled(baseNanos, retry)));
    // The jitter range's top is cut to the time left; nextDouble() < 1 keeps the draw below it.
    long top = Math.min(ceiling, remainingNanos);
    long span = top - baseNanos;
    if (span == 0) {
      return baseNanos; // the cap is the base: no jitter (and base < remainingNanos)
    }
    // min(): a product rounded up to span itself must still land below the top.
    return baseNanos + Math.min((long) (random.nextDouble() * span), span - 1);
  }

  /** base * 2^n, saturating instead of overflowing for large n. */
  private static long doubled(long base, int n) {
    if (base == 0) {
      return 0;
    }
    if (n >= Long.numberOfLeadingZeros(base)) {
      return Long.MAX_VALUE;
    }
    return base << n;
  }
}
