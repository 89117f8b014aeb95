package narwhal.core.control;

import java.util.ArrayDeque;
import java.util.Deque;
import narwhal.core.fleet.ArrivalTally.Arrivals;

/**
 * A sliding window over the fleet's arrivals ({@code reactive.window_s}), fed once per monitor
 * tick with what arrived during the tick. It gives the reactive scoring its demand: the mean prompt
 * a new request brings, and whether demand is heavy enough ({@code reactive.min_arrivals}) to
 * be scored at all. Confined to the controller's loop.
 */
final class DemandWindow {

  private record Bucket(long atNanos, Arrivals arrivals) {}

  private final long windowNanos;
  private final int minArrivals;
  private final long startedAtNanos;
  private final Deque<Bucket> buckets = new ArrayDeque<>();

  DemandWindow(long windowNanos, int minArrivals, long startedAtNanos) {
    this.windowNanos = windowNanos;
    this.minArrivals = minArrivals;
    this.startedAtNanos = startedAtNanos;
  }

  /** The arrivals of the tick ending at {@code now}. */
  void add(long now, Arrivals arrivals) {
    buckets.addLast(new Bucket(now, arrivals));
    while (!buckets.isEmpty() && buckets.peekFirst().atNanos() <= now - windowNanos) {
      buckets.removeFirst();
    }
  }

  Demand demand(long now) {
    Arrivals sum = Arrivals.NONE;
    for (Bucket b : buckets) {
      if (b.atNanos() > now - windowNanos) {
        sum = sum.plus(b.arrivals());
      }
    }
    double spanS = Math.min(windowNanos, Math.max(0, now - startedAtNanos)) / 1e9;
    long n = sum.count();
    return new Demand(n, spanS, n == 0 ? 0 : (double) sum.promptTokens() / n,
        n == 0 ? 0 : (double) sum.wantedTokens() / n, n > 0 && n >= minArrivals);
  }
}
