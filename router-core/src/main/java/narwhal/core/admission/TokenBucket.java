package narwhal.core.admission;

/**
 * A token bucket on a monotonic clock: refilled at {@code ratePerS} tokens a second up to {@code
 * burst}, one token per request. Times come from the request's scheduler ({@code nanoTime()}), so
 * tests drive it with a manual clock. Not thread-safe: {@link Admission} calls it under its lock.
 * It starts full, at its first use.
 */
public final class TokenBucket {

  private final double fullRatePerNano;
  private final double fullBurst;
  private double ratePerNano;
  private double burst;
  private double tokens;
  private long refilledNanos;
  private boolean started;

  /** A bucket that is full when first used. */
  public TokenBucket(double ratePerS, double burst) {
    if (!(ratePerS > 0) || !(burst >= 1)) {
      throw new IllegalArgumentException("a bucket needs a positive rate and a burst of at least 1");
    }
    this.fullRatePerNano = ratePerS / 1e9;
    this.fullBurst = burst;
    this.ratePerNano = fullRatePerNano;
    this.burst = burst;
    this.tokens = burst;
  }

  /**
   * Keeps {@code fraction} (0 to 1) of the configured rate and burst: this router's share of a
   * tenant's rate when replicas share it. Tokens above the new burst are dropped at once, so a
   * shrinking share can never admit more than it now holds; a growing one fills at its new rate.
   */
  public void rescale(double fraction, long nowNanos) {
    double f = Math.max(0, Math.min(1, fraction));
    refill(nowNanos);
    ratePerNano = fullRatePerNano * f;
    burst = fullBurst * f;
    tokens = Math.min(tokens, burst);
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
    if (ratePerNano <= 0 || burst < 1) {
      // A share of none (replicas hold all of it): try again in a second, when shares may have moved.
      return 1_000_000_000L;
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
