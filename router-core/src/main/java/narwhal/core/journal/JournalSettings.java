package narwhal.core.journal;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The bounds, the writer's intervals, its clock (monotonic nanoseconds, injected so the drop
 * report's pacing is tested without sleeping) and how the file is opened.
 */
public record JournalSettings(int maxQueuedRows, long maxQueuedBytes, Duration retryInterval, Duration reportInterval,
    LongSupplier nanoClock, JournalOpener opener) {

  public static JournalSettings defaults() {
    return new JournalSettings(JsonlJournal.DEFAULT_MAX_QUEUED_ROWS, JsonlJournal.DEFAULT_MAX_QUEUED_BYTES, Duration.ofSeconds(1),
        Duration.ofSeconds(10), System::nanoTime, JournalOpener.append());
  }

  public JournalSettings {
    if (maxQueuedRows < 1 || maxQueuedBytes < 1) {
      throw new IllegalArgumentException("the journal queue bounds must be positive");
    }
  }

  public JournalSettings withBounds(int rows, long bytes) {
    return new JournalSettings(rows, bytes, retryInterval, reportInterval, nanoClock, opener);
  }

  public JournalSettings withIntervals(Duration retry, Duration report) {
    return new JournalSettings(maxQueuedRows, maxQueuedBytes, retry, report, nanoClock, opener);
  }

  public JournalSettings withClock(LongSupplier clock) {
    return new JournalSettings(maxQueuedRows, maxQueuedBytes, retryInterval, reportInterval, clock, opener);
  }

  public JournalSettings withOpener(JournalOpener o) {
    return new JournalSettings(maxQueuedRows, maxQueuedBytes, retryInterval, reportInterval, nanoClock, o);
  }
}
