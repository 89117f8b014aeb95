package narwhal.core.health;

import java.util.Map;
import narwhal.core.metrics.RouterMetrics;

/** Breaker decisions as metrics: {@code narwhal_engine_events_total} and {@code narwhal_probes_total}. */
public final class MetricsHealthEvents implements HealthEvents {

  private final RouterMetrics metrics;

  public MetricsHealthEvents(RouterMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void record(String event, Map<String, Object> fields) {
    Object iid = fields.get("iid");
    Object probe = fields.get("probe");
    Object outcome = fields.get("outcome");
    metrics.engineEvent(event, iid == null ? "fleet" : iid.toString(),
        probe == null ? null : probe.toString(), outcome == null ? null : outcome.toString());
  }
}
