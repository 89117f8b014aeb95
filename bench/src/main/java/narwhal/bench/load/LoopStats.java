package narwhal.bench.load;

import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What one event loop measured in one run. Each loop records into its own instance (no
 * synchronisation on the hot path); the driver merges them after the loops are quiet.
 */
public final class LoopStats {
  /** Microseconds up to ten minutes at three significant digits. */
  private static final long HIGHEST_US = 600_000_000L;

  final Histogram ttftUs = new Histogram(HIGHEST_US, 3);
  final Histogram itlUs = new Histogram(HIGHEST_US, 3);
  long completed;
  long tokens;
  long errors;
  long errorsInWindow;
  long started;
  final Map<String, Long> errorKinds = new TreeMap<>();
  String firstError = "";

  void recordTtft(long nanos) {
    ttftUs.recordValue(Math.min(HIGHEST_US, Math.max(0, nanos / 1000)));
  }

  void recordItl(long nanos) {
    itlUs.recordValue(Math.min(HIGHEST_US, Math.max(0, nanos / 1000)));
  }

  void recordError(String kind, String detail, boolean inWindow) {
    errors++;
    if (inWindow) {
      errorsInWindow++;
    }
    errorKinds.merge(kind, 1L, Long::sum);
    if (firstError.isEmpty()) {
      firstError = kind + ": " + detail;
    }
  }

  /** Adds {@code other} into this. */
  public void add(LoopStats other) {
    ttftUs.add(other.ttftUs);
    itlUs.add(other.itlUs);
    completed += other.completed;
    tokens += other.tokens;
    errors += other.errors;
    errorsInWindow += other.errorsInWindow;
    started += other.started;
    other.errorKinds.forEach((k, v) -> errorKinds.merge(k, v, Long::sum));
    if (firstError.isEmpty()) {
      firstError = other.firstError;
    }
  }

  public Histogram ttftUs() {
    return ttftUs;
  }

  public Histogram itlUs() {
    return itlUs;
  }

  public long completed() {
    return completed;
  }

  public long tokens() {
    return tokens;
  }

  public long errors() {
    return errors;
  }

  public long errorsInWindow() {
    return errorsInWindow;
  }

  public long started() {
    return started;
  }

  public Map<String, Long> errorKinds() {
    return errorKinds;
  }

  public String firstError() {
    return firstError;
  }
}
