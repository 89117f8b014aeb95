package narwhal.core.health;

import java.util.Map;

/**
 * Where breaker decisions go: the journal (as event rows) and metrics. One call per event;
 * {@code fields} carries the event's details (iid, class, outcome, detail, ...).
 */
public interface HealthEvents {

  /**
   * @param event one of {@code engine_held}, {@code engine_ejected}, {@code probe},
   *     {@code readmitted}, {@code hold_skipped}, {@code wave_hold}, {@code wave_release}
   */
  void record(String event, Map<String, Object> fields);

  HealthEvents NONE = (event, fields) -> {};

  /** Both sinks, in order (e.g. the journal and the metrics). */
  static HealthEvents both(HealthEvents first, HealthEvents second) {
    return (event, fields) -> {
      first.record(event, fields);
      second.record(event, fields);
    };
  }
}
