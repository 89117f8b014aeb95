package narwhal.core.journal;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * Paces the journal's "rows dropped" warnings: at most one line per interval, naming what was
 * dropped since the last line, so a full queue never floods the log (drops happen per request).
 * Only the writer thread uses it; time is passed in, so the pacing is tested without sleeping.
 */
final class DropReport {

  private final long intervalNanos;
  private final Map<JournalDropReason, Long> reported = new EnumMap<>(JournalDropReason.class);
  private long lastNanos;

  DropReport(long intervalNanos, long startNanos) {
    this.intervalNanos = intervalNanos;
    this.lastNanos = startNanos;
    for (JournalDropReason r : JournalDropReason.values()) {
      reported.put(r, 0L);
    }
  }

  /** Nanoseconds until a report may be due (at least 1 ms, so a waiting writer never spins). */
  long nanosToNext(long nowNanos) {
    return Math.max(1_000_000L, lastNanos + intervalNanos - nowNanos);
  }

  /**
   * The warning to log now ({@code "12 queue_full, 1 unencodable"} rows dropped since the last
   * one), or null when the interval has not passed or nothing new was dropped.
   */
  @Nullable String due(long nowNanos, ToLongFunction<JournalDropReason> totals) {
    if (nowNanos - lastNanos < intervalNanos) {
      return null;
    }
    lastNanos = nowNanos;
    StringBuilder line = new StringBuilder();
    for (JournalDropReason r : JournalDropReason.values()) {
      long total = totals.applyAsLong(r);
      long fresh = total - reported.put(r, total);
      if (fresh > 0) {
        line.append(line.length() == 0 ? "" : ", ").append(fresh).append(' ').append(r.label())
            .append(" (").append(total).append(" in all)");
      }
    }
    return line.length() == 0 ? null : line.toString();
  }
}
