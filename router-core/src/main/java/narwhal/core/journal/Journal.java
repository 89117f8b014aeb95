package narwhal.core.journal;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Where the router writes one terminal row per request and event rows. Implementations must never
 * block the caller: rows are written from event loops.
 */
public interface Journal extends AutoCloseable {

  /** Records one row (field name to JSON-serialisable value). */
  void record(Map<String, Object> row);

  /**
   * Why rows cannot be written right now (the disk is full, the file is gone), or null while
   * they can; {@code /ready} reports it.
   */
  default @Nullable String notWritingReason() {
    return null;
  }

  /** Closes and reopens the underlying file (SIGHUP, after logrotate moved it); a no-op here. */
  default void reopen() {}

  @Override
  void close();

  /** A journal that keeps nothing. */
  static Journal none() {
    return new Journal() {
      @Override
      public void record(Map<String, Object> row) {}

      @Override
      public void close() {}
    };
  }
}
