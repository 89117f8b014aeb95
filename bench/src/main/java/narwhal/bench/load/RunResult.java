package narwhal.bench.load;

/** The merged measurements of one run and the length of its window. */
public record RunResult(LoopStats stats, double windowSeconds, int peakInFlight, boolean drained) {

  public double requestsPerSecond() {
    return stats.completed() / windowSeconds;
  }

  public double tokensPerSecond() {
    return stats.tokens() / windowSeconds;
  }
}
