package narwhal.adapters.kit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import narwhal.core.journal.Journal;

/** Keeps the journal's rows in memory. */
final class RecordingJournal implements Journal {

  private final List<Map<String, Object>> rows = new ArrayList<>();

  @Override
  public synchronized void record(Map<String, Object> row) {
    // Rows may hold nulls (e.g. no status for a cancelled request), which Map.copyOf refuses.
    rows.add(new HashMap<>(row));
  }

  synchronized List<Map<String, Object>> rows() {
    return List.copyOf(rows);
  }

  @Override
  public void close() {}
}
