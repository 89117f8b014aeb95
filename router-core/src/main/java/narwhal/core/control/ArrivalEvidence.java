package narwhal.core.control;

import narwhal.core.fleet.ArrivalTally.Arrivals;
import org.jspecify.annotations.Nullable;

/**
 * The arrival evidence a D→P move needs, as consecutive windows. A window opens when the last one
 * closes; it closes at the first tick after {@code reactive.evidence_span_s} once it holds {@code
 * evidence_min_arrivals} arrivals, or at {@code evidence_max_span_s} whatever it holds (then it is
 * <em>thin</em>). A D→P move needs the last two closed windows both sufficient, and the decode
 * demand (wanted output tokens per second) of the later one at most {@code 1 +
 * demand_rise_tolerance} times the earlier one's: taking a decode engine away while decode demand
 * climbs would have to be undone.
 *
 * <p>Two windows, not one, because stability is a comparison: one window says how much demand
 * there was, not where it is going. Confined to the controller's loop.
 */
final class ArrivalEvidence {

  private final long spanNanos;
  private final long maxSpanNanos;
  private final int minArrivals;
  private long openedAtNanos;
  private Arrivals open = Arrivals.NONE;
  private @Nullable EvidenceWindow latest;
  private @Nullable EvidenceWindow previous;

  ArrivalEvidence(long spanNanos, long maxSpanNanos, int minArrivals, long startedAtNanos) {
    this.spanNanos = spanNanos;
    this.maxSpanNanos = Math.max(spanNanos, maxSpanNanos);
    this.minArrivals = minArrivals;
    this.openedAtNanos = startedAtNanos;
  }

  /** The arrivals of the tick ending at {@code now}; closes the open window when it is due. */
  void add(long now, Arrivals arrivals) {
    open = open.plus(arrivals);
    long elapsed = now - openedAtNanos;
    boolean enough = open.count() >= minArrivals;
    if ((elapsed >= spanNanos && enough) || elapsed >= maxSpanNanos) {
      previous = latest;
      latest = new EvidenceWindow(elapsed / 1e9, open.count(), open.wantedTokens(), enough);
      open = Arrivals.NONE;
      openedAtNanos = now;
    }
  }

  /** What stops a D→P move on evidence grounds, or null when the evidence allows it. */
  @Nullable Blocker decodeToPrefill(double riseTolerance) {
    EvidenceWindow last = latest;
    EvidenceWindow before = previous;
    if (!sufficient(last) || !sufficient(before)) {
      return Blocker.EVIDENCE;
    }
    if (last.decodeDemand() > (1 + riseTolerance) * before.decodeDemand()) {
      return Blocker.DEMAND_RISING;
    }
    return null;
  }

  /**
   * True when the last two windows are sufficient and agree within {@code tolerance} both ways,
   * in arrival rate and in decode demand: demand has settled.
   */
  boolean steady(double tolerance) {
    EvidenceWindow last = latest;
    EvidenceWindow before = previous;
    return sufficient(last) && sufficient(before)
        && within(last.rate(), before.rate(), tolerance)
        && within(last.decodeDemand(), before.decodeDemand(), tolerance);
  }

  /** The last closed window, or null before the first closes. */
  @Nullable EvidenceWindow latest() {
    return latest;
  }

  private static boolean sufficient(@Nullable EvidenceWindow w) {
    return w != null && w.sufficient();
  }

  private static boolean within(double a, double b, double tolerance) {
    return a <= (1 + tolerance) * b && b <= (1 + tolerance) * a;
  }
}
