package narwhal.bench.wakeup;

import java.util.Arrays;
import narwhal.bench.wakeup.Gaps.Gap;

/**
 * One gap's round trips, summarised. Percentiles are nearest-rank on the exact samples (no
 * histogram buckets): a few thousand values, and the differences of interest are microseconds.
 *
 * @param lateSends samples whose send the prober made later than planned (it woke late from its
 *     own park): their gap was longer than asked, so many of them make the row suspect
 * @param maxLateUs the latest send's delay
 */
record RttStats(Gap gap, int samples, double p50Us, double p90Us, double p99Us, double minUs, double maxUs,
    double meanUs, int lateSends, double maxLateUs) {

  static RttStats of(Gap gap, long[] rttNanos, int lateSends, long maxLateNanos) {
    if (rttNanos.length == 0) {
      throw new IllegalArgumentException("no samples for the " + gap.label() + " ms gap");
    }
    long[] sorted = rttNanos.clone();
    Arrays.sort(sorted);
    double sum = 0;
    for (long v : sorted) {
      sum += v;
    }
    return new RttStats(gap, sorted.length, us(percentile(sorted, 50)), us(percentile(sorted, 90)),
        us(percentile(sorted, 99)), us(sorted[0]), us(sorted[sorted.length - 1]), sum / sorted.length / 1e3,
        lateSends, us(maxLateNanos));
  }

  /** Nearest rank: the smallest value with at least {@code p} percent of the samples at or below it. */
  static long percentile(long[] sorted, double p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
  }

  private static double us(long nanos) {
    return nanos / 1e3;
  }
}
