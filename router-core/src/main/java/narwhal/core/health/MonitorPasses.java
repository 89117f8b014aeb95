package narwhal.core.health;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the router's monitoring still works ({@code controller.monitor_failure_limit}). Each
 * monitoring stage (the breaker's ticks, the role controller's passes) reports every pass; a
 * stage whose passes fail {@code limit} times in a row sets the router <em>degraded</em>:
 * admission refuses new requests (503) and {@code /ready} says {@code monitoring degraded: <stage>
 * <class>}, until one clean pass of that stage. Requests already admitted carry on.
 *
 * <p>Why stop admitting: a breaker that keeps failing no longer ejects dead engines or readmits
 * healthy ones, and a controller that keeps failing no longer balances the pools, so the router's
 * view of its fleet can no longer be trusted; a load balancer routing on {@code /ready} sends the
 * traffic to a router whose view can. Entering and leaving the state are journal event rows
 * ({@code monitoring_degraded}, {@code monitoring_recovered}) and WARN/INFO log lines.
 *
 * <p>Stages report from the monitor's loop; {@link #degradedReason()} is read from any thread.
 */
public final class MonitorPasses {

  private static final Logger log = LoggerFactory.getLogger(MonitorPasses.class);

  private final int limit;
  private final HealthEvents events;
  private final Map<String, Integer> streaks = new HashMap<>();
  private final Map<String, String> lastFault = new LinkedHashMap<>();
  private volatile @Nullable String degraded;

  /**
   * @param limit failed passes in a row that set degraded (at least 1)
   * @param events where the entering and leaving event rows go
   */
  public MonitorPasses(int limit, HealthEvents events) {
    this.limit = Math.max(1, limit);
    this.events = events;
  }

  /** A pass of {@code stage} completed. */
  public synchronized void passed(String stage) {
    streaks.put(stage, 0);
    if (lastFault.remove(stage) != null) {
      update(stage);
    }
  }

  /** A pass of {@code stage} threw {@code fault}. */
  public synchronized void failed(String stage, RuntimeException fault) {
    int streak = streaks.merge(stage, 1, Integer::sum);
    log.warn("monitoring stage {} failed ({} in a row, limit {}); it runs again next interval", stage, streak, limit,
        fault);
    if (streak >= limit && !lastFault.containsKey(stage)) {
      // The exception's class, never its message: messages can carry engine addresses.
      lastFault.put(stage, fault.getClass().getSimpleName());
      update(stage);
    }
  }

  /** {@code monitoring degraded: <stage> <class>} while some stage is failing, else null. */
  public @Nullable String degradedReason() {
    return degraded;
  }

  private void update(String stage) {
    String before = degraded;
    if (lastFault.isEmpty()) {
      degraded = null;
    } else {
      Map.Entry<String, String> first = lastFault.entrySet().iterator().next();
      degraded = "monitoring degraded: " + first.getKey() + " " + first.getValue();
    }
    if (before == null && degraded != null) {
      log.warn("{}: {} failed passes in a row; admission stops until a clean pass", degraded, limit);
      events.record("monitoring_degraded", fields(stage, lastFault.get(stage)));
    } else if (before != null && degraded == null) {
      log.info("monitoring recovered: a clean {} pass; admission resumes", stage);
      events.record("monitoring_recovered", fields(stage, null));
    }
  }

  private Map<String, Object> fields(String stage, @Nullable String fault) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("stage", stage);
    if (fault != null) {
      f.put("fault", fault);
      f.put("failed_passes", limit);
    }
    return f;
  }
}
