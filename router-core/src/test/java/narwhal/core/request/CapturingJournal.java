package narwhal.core.request;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import narwhal.core.journal.Journal;

/** Keeps every journal row in memory. */
final class CapturingJournal implements Journal {

  final List<Map<String, Object>> rows = new ArrayList<>();

  @Override
  public void record(Map<String, Object> row) {
    rows.add(row);
  }

  @Override
  public void close() {}

  /** The only row written; fails the test unless there is exactly one. */
  Map<String, Object> row() {
    if (rows.size() != 1) {
      throw new AssertionError("expected one journal row, got " + rows);
    }
    return rows.get(0);
  }
}
