package narwhal.core.journal;

import java.util.Map;

/**
 * Where the router writes one terminal row per request and event rows. Implementations must never
 * block the caller: rows are written from event loops.
 */
public interface Journal extends AutoCloseable {

  /** Records one row (field name to JSON-serialisable value). */
  void record(Map<String, Object> row);

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
