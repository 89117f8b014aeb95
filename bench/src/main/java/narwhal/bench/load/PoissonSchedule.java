package narwhal.bench.load;

import java.util.SplittableRandom;

/**
 * Arrival times of an open-loop run: exponentially distributed gaps with mean {@code 1 / rate},
 * i.e. a Poisson process. Seeded, so a run's arrival pattern is reproducible. Not thread-safe.
 */
public final class PoissonSchedule {
  private final double meanGapNanos;
  private final SplittableRandom random;

  public PoissonSchedule(double ratePerSecond, long seed) {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("rate must be a positive number of requests per second, got " + ratePerSecond);
    }
    this.meanGapNanos = 1e9 / ratePerSecond;
    this.random = new SplittableRandom(seed);
  }

  /** The gap to the next arrival, in nanoseconds (at least 1). */
  public long nextGapNanos() {
    // 1 - U is in (0, 1], so the logarithm is finite.
    double gap = -Math.log(1.0 - random.nextDouble()) * meanGapNanos;
    return Math.max(1L, Math.round(gap));
  }
}
