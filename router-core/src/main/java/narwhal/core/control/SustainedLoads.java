package narwhal.core.control;

import java.util.EnumMap;
import java.util.Map;

/**
 * How many monitor ticks in a row each load condition has held: a condition is sustained once it
 * held for {@code thresholds.sustained_intervals} ticks. A tick whose loads are unknown breaks
 * every run; so does a move ({@link #reset}), because the loads measured before it describe a
 * split that no longer exists. Confined to the controller's loop.
 */
final class SustainedLoads {

  /** The load conditions the rules read. */
  enum Condition {
    /** Prefill load ≥ expand. */
    PREFILL_HIGH,
    /** Decode load ≥ expand. */
    DECODE_HIGH,
    /** Prefill load ≤ shrink ≤ decode load: prefill can give an engine to decode. */
    PREFILL_SHRINK,
    /** Decode load ≤ shrink ≤ prefill load: decode can give an engine to prefill. */
    DECODE_SHRINK
  }

  private final double expand;
  private final double shrink;
  private final Map<Condition, Integer> runs = new EnumMap<>(Condition.class);

  SustainedLoads(double expand, double shrink) {
    this.expand = expand;
    this.shrink = shrink;
    reset();
  }

  /** One tick's pool loads. */
  void observe(PoolLoads loads) {
    if (!loads.priced()) {
      reset();
      return;
    }
    double p = loads.prefill().load();
    double d = loads.decode().load();
    count(Condition.PREFILL_HIGH, p >= expand);
    count(Condition.DECODE_HIGH, d >= expand);
    count(Condition.PREFILL_SHRINK, p <= shrink && shrink <= d);
    count(Condition.DECODE_SHRINK, d <= shrink && shrink <= p);
  }

  /** True when {@code condition} held for the last {@code intervals} ticks. */
  boolean sustained(Condition condition, int intervals) {
    return runs.get(condition) >= intervals;
  }

  int run(Condition condition) {
    return runs.get(condition);
  }

  void reset() {
    for (Condition c : Condition.values()) {
      runs.put(c, 0);
    }
  }

  private void count(Condition condition, boolean holds) {
    runs.put(condition, holds ? runs.get(condition) + 1 : 0);
  }
}
