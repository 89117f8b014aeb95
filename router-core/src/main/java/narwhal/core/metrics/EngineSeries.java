package narwhal.core.metrics;

import com.codahale.metrics.Counter;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import narwhal.api.FailureClass;
import narwhal.core.fleet.EngineState;
import narwhal.spi.Phase;
import org.jspecify.annotations.Nullable;

/**
 * The per-engine series of {@link RouterMetrics}: legs dispatched and failed, and whether the
 * engine is quarantined. Every series is registered for the configured engines at start, and only
 * for them, so the label sets are bounded by the fleet file.
 */
final class EngineSeries {

  static final String REQUESTS = "narwhal_engine_requests_total";
  static final String FAILURES = "narwhal_engine_failures_total";

  /** Failure counters by iid, then phase, then class; filled by {@link #watch}, read from any loop. */
  private final Map<String, Map<Phase, Map<FailureClass, Counter>>> failures = new ConcurrentHashMap<>();

  /** Registers every engine's series; call once, before requests run. */
  void watch(RouterMetrics metrics, Iterable<EngineState> engines, LongSupplier nanoTime) {
    for (EngineState e : engines) {
      String iid = e.iid();
      metrics.readingCounter(REQUESTS, "Legs the router dispatched to an engine, by phase.",
          e::prefillLegsDispatched, "iid", iid, "phase", "prefill");
      metrics.readingCounter(REQUESTS, "Legs the router dispatched to an engine, by phase.",
          e::decodeLegsDispatched, "iid", iid, "phase", "decode");
      Map<Phase, Map<FailureClass, Counter>> byPhase = new EnumMap<>(Phase.class);
      for (Phase phase : Phase.values()) {
        Map<FailureClass, Counter> byClass = new EnumMap<>(FailureClass.class);
        for (FailureClass cls : FailureClass.values()) {
          byClass.put(cls, metrics.counter(FAILURES,
              "Legs that failed on an engine, by phase and failure class (every failed attempt, retried or not).",
              "iid", iid, "phase", phase.wireName(), "class", cls.wireName()));
        }
        byPhase.put(phase, byClass);
      }
      failures.put(iid, byPhase);
      metrics.gauge("narwhal_engine_quarantined",
          "1 while an engine is quarantined after a failure (recovery.failure_quarantine_s).",
          () -> e.isQuarantined(nanoTime.getAsLong()) ? 1 : 0, "iid", iid);
    }
  }

  /** Counts one failed leg; an engine that is not configured is not counted (bounded labels). */
  void failed(String iid, Phase phase, FailureClass cls) {
    Map<Phase, Map<FailureClass, Counter>> byPhase = failures.get(iid);
    if (byPhase != null) {
      byPhase.get(phase).get(cls).inc();
    }
  }

  /** {@code iid} when it is a configured engine, else {@link LabelValues#NO_ENGINE}. */
  String configured(@Nullable String iid) {
    return iid != null && failures.containsKey(iid) ? iid : LabelValues.NO_ENGINE;
  }

  Iterable<String> iids() {
    return failures.keySet();
  }
}
