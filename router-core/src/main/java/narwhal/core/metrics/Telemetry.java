package narwhal.core.metrics;

import com.codahale.metrics.MetricRegistry;
import java.util.Objects;
import java.util.UUID;

/**
 * What ties one router's records together: the run id stamped on every journal row (and on the
 * journal's {@code meta} row), and the registry its metrics live in.
 */
public record Telemetry(String runId, MetricRegistry registry) {

  public Telemetry {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(registry, "registry");
  }

  /** A fresh run id and an empty registry. */
  public static Telemetry create() {
    return new Telemetry(newRunId(), new MetricRegistry());
  }

  /** A short random id for one router run. */
  public static String newRunId() {
    return UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }
}
