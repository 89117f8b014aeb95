package narwhal.core.metrics;

import com.codahale.metrics.Metric;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * A histogram with fixed bucket bounds, as Prometheus defines one: a count per bucket, the sum and
 * the number of observations. Dropwizard's own histograms keep reservoir samples for quantiles,
 * which cannot be aggregated across routers; fixed buckets can.
 *
 * <p>Thread-safe and lock-free: observations from every event loop go to adders. A snapshot taken
 * while observations arrive may be off by those in flight, which a scrape tolerates.
 */
public final class BucketedHistogram implements Metric {

  private final double[] upperBounds;
  private final LongAdder[] counts;
  private final DoubleAdder sum = new DoubleAdder();

  /** @param upperBounds finite, strictly increasing bucket bounds; the +Inf bucket is implied */
  public BucketedHistogram(double... upperBounds) {
    if (upperBounds.length == 0) {
      throw new IllegalArgumentException("a histogram needs at least one bucket bound");
    }
    for (int i = 0; i < upperBounds.length; i++) {
      if (!Double.isFinite(upperBounds[i]) || (i > 0 && upperBounds[i] <= upperBounds[i - 1])) {
        throw new IllegalArgumentException("bucket bounds must be finite and increasing: "
            + Arrays.toString(upperBounds));
      }
    }
    this.upperBounds = upperBounds.clone();
    this.counts = new LongAdder[upperBounds.length + 1];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = new LongAdder();
    }
  }

  /** Bounds {@code base × factor} for each factor, e.g. an SLO times {0.025, ..., 10}. */
  public static BucketedHistogram scaled(double base, double... factors) {
    double[] bounds = new double[factors.length];
    for (int i = 0; i < factors.length; i++) {
      // In decimal, so 0.1 x 0.025 is the bound 0.0025 and not 0.0025000000000000005.
      bounds[i] = BigDecimal.valueOf(base).multiply(BigDecimal.valueOf(factors[i])).doubleValue();
    }
    return new BucketedHistogram(bounds);
  }

  /** Counts one observation in the first bucket whose bound is at least {@code value}. */
  public void observe(double value) {
    if (Double.isNaN(value)) {
      return;
    }
    int i = Arrays.binarySearch(upperBounds, value);
    counts[i >= 0 ? i : -i - 1].increment();
    sum.add(value);
  }

  public Snapshot snapshot() {
    long[] each = new long[counts.length];
    for (int i = 0; i < each.length; i++) {
      each[i] = counts[i].sum();
    }
    return new Snapshot(upperBounds.clone(), each, sum.sum());
  }

  /**
   * @param upperBounds the finite bounds, ascending
   * @param counts observations per bucket (not cumulative); one more entry than bounds, the last
   *     for values above every bound
   * @param sum the sum of all observations
   */
  public record Snapshot(double[] upperBounds, long[] counts, double sum) {

    public long count() {
      return Arrays.stream(counts).sum();
    }

    /** Observations at or below {@code upperBounds[i]} (Prometheus's {@code le} bucket). */
    public long cumulative(int i) {
      long total = 0;
      for (int j = 0; j <= i; j++) {
        total += counts[j];
      }
      return total;
    }
  }
}
