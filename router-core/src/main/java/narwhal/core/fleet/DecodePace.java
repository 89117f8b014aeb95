package narwhal.core.fleet;

import java.util.concurrent.atomic.LongAdder;

/**
 * The pace of decode output on one engine as the router sees it: the gaps between consecutive
 * tokens of each stream the engine is decoding, summed until the role controller drains them once
 * per monitor interval. Requests on every event loop record here, so it is two adders and no lock.
 *
 * <p>A drain reads and resets the two sums one after the other: a gap recorded between the two
 * reads lands its count in one sample and its nanoseconds in the next. One gap in a sample of
 * hundreds moves the mean by a fraction of a percent, which the controller's smoothing absorbs.
 */
public final class DecodePace {

  private final LongAdder gaps = new LongAdder();
  private final LongAdder gapNanos = new LongAdder();

  /** One stream produced a token {@code nanos} after its previous one. */
  public void tokenGap(long nanos) {
    if (nanos < 0) {
      return;
    }
    gaps.increment();
    gapNanos.add(nanos);
  }

  /** The gaps recorded since the last drain, and starts a new sample. */
  public Sample drain() {
    long n = gaps.sumThenReset();
    long total = gapNanos.sumThenReset();
    return new Sample(n, total);
  }

  /**
   * Token gaps seen on one engine over one sampling period.
   *
   * @param gaps how many gaps were recorded
   * @param totalNanos their sum
   */
  public record Sample(long gaps, long totalNanos) {

    /** The mean gap in seconds, or NaN when no gap was recorded (nothing decoded). */
    public double meanSeconds() {
      return gaps <= 0 ? Double.NaN : totalNanos / 1e9 / gaps;
    }
  }
}
