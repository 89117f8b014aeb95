package narwhal.core.retry;

import java.util.random.RandomGenerator;

/**
 * Full-jitter exponential backoff: before retry {@code n} (1-based) wait a uniform time in
 * {@code [0, min(cap, base * 2^(n-1))]}, and never longer than the time the request has left.
 */
public final class Backoff {

  private final long baseNanos;
  private final long capNanos;
  private final RandomGenerator random;

  public Backoff(long baseNanos, long capNanos, RandomGenerator random) {
    this.baseNanos = baseNanos;
    this.capNanos = capNanos;
    this.random = random;
  }

  public long delayNanos(int retry, long remainingNanos) {
    double ceiling = Math.min((double) capNanos, baseNanos * Math.pow(2, Math.max(0, retry - 1)));
    long delay = (long) (random.nextDouble() * ceiling);
    return Math.max(0, Math.min(delay, remainingNanos));
  }
}
