package narwhal.core.health;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import narwhal.core.journal.Journal;

/** Breaker decisions as journal event rows: {@code {"kind":"event","event":"engine_held","at":...}}. */
public final class JournalHealthEvents implements HealthEvents {

  private final Journal journal;
  private final Clock wallClock;

  public JournalHealthEvents(Journal journal, Clock wallClock) {
    this.journal = journal;
    this.wallClock = wallClock;
  }

  @Override
  public void record(String event, Map<String, Object> fields) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("kind", "event");
    row.put("event", event);
    row.put("at", wallClock.millis() / 1000.0);
    row.putAll(fields);
    journal.record(row);
  }
}
