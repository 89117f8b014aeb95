package narwhal.core.metrics;

import java.util.List;

/**
 * Every documented value of the outcome counters' labels (docs/journal-and-metrics.md, "Metrics"), so each series
 * exists at zero from the start: a rate or an alert over a series that appears only with its first
 * event sees no change at that event, and a dashboard cannot tell "none yet" from "not exported".
 */
final class LabelValues {

  /** {@code narwhal_failed_total{reason}}: the journal's failed reasons. */
  static final List<String> FAILED_REASONS = List.of("no_engine", "engine_unreachable", "engine_connection",
      "engine_timeout", "engine_overloaded", "engine_rejected", "engine_error", "engine_credentials",
      "invalid_response", "response_limit", "internal");
  /**
   * {@code narwhal_refused_total{cause}}: predictive admission's causes (this router produces
   * {@code queue} and {@code prompt}; the others are the reference's, kept at zero).
   */
  static final List<String> REFUSED_CAUSES = List.of("queue", "prompt", "aggregate_unpriced", "slot_wait",
      "kv_capacity", "tpot", "tenant_inflight", "tenant_queue", "tenant_rate");
  /** {@code narwhal_auth_failures_total{reason}}: why a caller was refused (401, 403). */
  static final List<String> AUTH_FAILURE_REASONS = List.of("missing", "unknown", "model_not_allowed", "operator");
  /** {@code narwhal_unserved_total{phase}}: placements that took an engine projected to miss the SLO. */
  static final List<String> UNSERVED_PHASES = List.of("prefill", "decode");
  /** {@code narwhal_tokenize_fallbacks_total{cause}}: why a prompt was estimated rather than counted. */
  static final List<String> TOKENIZE_FALLBACK_CAUSES = List.of("unsupported", "timeout", "error", "backoff");
  /** {@code narwhal_rejected_total{reason}}. */
  static final List<String> REJECTED_REASONS = List.of("inflight_limit", "not_ready");
  /** {@code narwhal_expired_total{reason}}. */
  static final List<String> EXPIRED_REASONS = List.of("deadline", "queue_timeout", "handoff");
  /** {@code narwhal_engine_events_total{event}} for events about one engine. */
  static final List<String> ENGINE_EVENTS = List.of("engine_held", "engine_ejected", "probe", "readmitted",
      "hold_skipped");
  /** {@code narwhal_engine_events_total{event}} for events about the whole fleet ({@code iid="fleet"}). */
  static final List<String> FLEET_EVENTS = List.of("wave_hold", "wave_release", "monitoring_degraded",
      "monitoring_recovered");
  /** {@code narwhal_probes_total{probe}}. */
  static final List<String> PROBES = List.of("health", "liveness", "inference", "lifecycle");
  /** {@code narwhal_probes_total{outcome}}. */
  static final List<String> PROBE_OUTCOMES = List.of("passed", "failed", "inconclusive");
  /**
   * The {@code iid} of {@code narwhal_failed_total} when no engine failure started the request
   * (no engine to place it on, an internal error), or one that is not configured.
   */
  static final String NO_ENGINE = "none";

  private LabelValues() {}
}
