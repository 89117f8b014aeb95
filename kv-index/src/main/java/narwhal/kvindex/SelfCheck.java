package narwhal.kvindex;

/**
 * Compares one engine's predicted cached tokens with what the engine reports, over its last {@code
 * window} prefills: the divergence is Σ|reported − predicted| / max(Σ reported, Σ predicted), the
 * share of cached tokens the predictions got wrong. Once the window is full and the divergence is
 * over {@code threshold}, the index is suspect; it is trusted again when the divergence falls to
 * half the threshold (so a borderline engine does not flap). Thread-safe (a tiny lock: each call
 * is a few additions).
 */
final class SelfCheck {

  /** What a check changed. */
  enum Change { NONE, BECAME_SUSPECT, RECOVERED }

  private final double threshold;
  private final long[] predicted;
  private final long[] reported;
  private int next;
  private int filled;
  private long sumPredicted;
  private long sumReported;
  private long sumError;
  private boolean suspect;
  private long checks;
  private long totalPredicted;
  private long totalReported;

  SelfCheck(double threshold, int window) {
    this.threshold = threshold;
    this.predicted = new long[window];
    this.reported = new long[window];
  }

  synchronized Change record(long predictedTokens, long reportedTokens) {
    long p = Math.max(0, predictedTokens);
    long r = Math.max(0, reportedTokens);
    if (filled == predicted.length) {
      sumPredicted -= predicted[next];
      sumReported -= reported[next];
      sumError -= Math.abs(predicted[next] - reported[next]);
    } else {
      filled++;
    }
    predicted[next] = p;
    reported[next] = r;
    sumPredicted += p;
    sumReported += r;
    sumError += Math.abs(p - r);
    next = (next + 1) % predicted.length;
    checks++;
    totalPredicted += p;
    totalReported += r;
    double d = divergenceLocked();
    if (!suspect && filled == predicted.length && d > threshold) {
      suspect = true;
      return Change.BECAME_SUSPECT;
    }
    if (suspect && d <= threshold / 2) {
      suspect = false;
      return Change.RECOVERED;
    }
    return Change.NONE;
  }

  synchronized boolean suspect() {
    return suspect;
  }

  synchronized double divergence() {
    return divergenceLocked();
  }

  synchronized long checks() {
    return checks;
  }

  synchronized long totalPredicted() {
    return totalPredicted;
  }

  synchronized long totalReported() {
    return totalReported;
  }

  /** Σ predicted / Σ reported over the window, or NaN when nothing was reported cached. */
  synchronized double ratio() {
    return sumReported == 0 ? Double.NaN : (double) sumPredicted / sumReported;
  }

  /** Clears the window (the index was dropped: its past predictions say nothing of the next). */
  synchronized void reset() {
    java.util.Arrays.fill(predicted, 0);
    java.util.Arrays.fill(reported, 0);
    next = 0;
    filled = 0;
    sumPredicted = 0;
    sumReported = 0;
    sumError = 0;
  }

  private double divergenceLocked() {
    long denominator = Math.max(sumPredicted, sumReported);
    return denominator == 0 ? 0 : (double) sumError / denominator;
  }
}
