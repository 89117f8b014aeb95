package narwhal.core.admission;

/**
 * A token bucket on a monotonic clock: refilled at {@code ratePerS} tokens a second up to {@code
 * burst}, one token per request. Times come from the request's scheduler ({@code nanoTime()}), so
 * tests drive it with a manual clock. Not thread-safe: {@link Admission} calls it under its lock.
 * It starts full, at its first use.
 */
public final class TokenBucket {

  private final double ratePerNano;
  private final double burst;
  private double tokens;
  private long refilledNanos;
  private boolean started;

  /** A bucket that is full when first used. */
  public TokenBucket(double ratePerS, double burst) {
    if (!(ratePerS > 0) || !(burst >= 1)) {
      throw new IllegalArgumentException("a bucket needs a positive rate and a burst of at least 1");
    }
    this.ratePerNano = ratePerS / 1e9;
    this.burst = burst;
    this.tokens = burst;
  }

  /**
   * Takes a token if one is there: 0 when taken, else how long until one will be (nanoseconds,
   * at least 1), which is what the caller's {@code Retry-After} is computed from.
   */
  public long tryTake(long nowNanos) {
    refill(nowNanos);
    if (tokens >= 1) {
      tokens -= 1;
      return 0;
    }
    return Math.max(1, (long) Math.ceil((1 - tokens) / ratePerNano));
  }

  private void refill(long nowNanos) {
    if (!started) {
      // Full at first use: the clock's origin is the scheduler's, unknown until then.
      started = true;
      refilledNanos = nowNanos;
      return;
    }
    // A clock that reads earlier (another loop's nanoTime a hair behind) adds nothing.
    if (nowNanos > refilledNanos) {
      tokens = Math.min(burst, tokens + (nowNanos - refilledNanos) * ratePerNano);
      refilledNanos = nowNanos;
    }
  }
}
