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
 *
 * <p>Streams hand their gaps over in batches ({@link StreamTally}), not one by one: two atomic adds
 * per relayed token were 1.3–1.5% of the router's CPU at 1,024 streams, for a figure read once per
 * monitor interval.
 */
public final class DecodePace {

  private final LongAdder gaps = new LongAdder();
  private final LongAdder gapNanos = new LongAdder();

  /** {@code count} token gaps summing to {@code nanos}, gathered by one stream ({@link StreamTally}). */
  public void tokenGaps(long count, long nanos) {
    if (count <= 0) {
      return;
    }
    gaps.add(count);
    gapNanos.add(nanos);
  }

  /** The gaps recorded since the last drain, and starts a new sample. */
  public Sample drain() {
    long n = gaps.sumThenReset();
    long total = gapNanos.sumThenReset();
    return new Sample(n, total);
  }

  /**
   * One stream's token gaps, held until {@link #BATCH} of them are gathered or they span
   * {@link #HELD_NANOS} (or the stream ends, {@link #flushTo}), then added to the engine's pace at
   * once. The time bound keeps a slow stream — an overloaded engine's, the very case the controller
   * acts on — from reaching the pace later than a quarter of a second behind a monitor tick.
   * Owned by the stream's event loop; not thread-safe.
   */
  public static final class StreamTally {

    /** Gaps gathered before they are handed over. */
    static final int BATCH = 16;
    /** At most this much stream time held back from the pace (the monitor ticks every second by default). */
    static final long HELD_NANOS = 250_000_000L;

    private int count;
    private long nanos;

    /** One gap of {@code gapNanos} on a stream decoding on the engine whose pace is {@code pace}. */
    public void tokenGap(long gapNanos, DecodePace pace) {
      if (gapNanos < 0) {
        return;
      }
      count++;
      nanos += gapNanos;
      if (count == BATCH || nanos >= HELD_NANOS) {
        flushTo(pace);
      }
    }

    /** Hands the gaps gathered so far to {@code pace}: at the stream's end, and every batch. */
    public void flushTo(DecodePace pace) {
      pace.tokenGaps(count, nanos);
      count = 0;
      nanos = 0;
    }
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
