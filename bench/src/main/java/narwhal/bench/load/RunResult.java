package narwhal.bench.load;

import java.util.List;

/** The merged measurements of one run and the length of its window. */
public record RunResult(LoopStats stats, double windowSeconds, int peakInFlight, boolean drained) {

  /** Several runs' windows as one: counts and histograms added, windows' lengths summed. */
  public static RunResult pooled(List<RunResult> runs) {
    LoopStats total = new LoopStats();
    double seconds = 0;
    int peak = 0;
    boolean drained = true;
    for (RunResult r : runs) {
      total.add(r.stats);
      seconds += r.windowSeconds;
      peak = Math.max(peak, r.peakInFlight);
      drained &= r.drained;
    }
    return new RunResult(total, seconds, peak, drained);
  }

  public double requestsPerSecond() {
    return stats.completed() / windowSeconds;
  }

  public double tokensPerSecond() {
    return stats.tokens() / windowSeconds;
  }
}
