package narwhal.core.health;

import java.util.Locale;
import narwhal.api.FailureClass;

/**
 * Why the breaker took an engine out of placement, which decides how it may come back: an engine
 * that went away comes back when it answers again; an engine that answered wrongly comes back only
 * when it answers a real inference correctly.
 */
enum OutCause {
  /** A connection streak: the engine could not be reached. */
  CONNECTION(false),
  /** Liveness sweeps missed in a row. */
  LIVENESS(false),
  /** A timeout or overload streak, and the health check that verified it failed. */
  HEALTH_VERIFY(false),
  /** First-token timeouts, mid-stream silence or bad termination. */
  STREAM(true),
  /** 5xx answers other than back-pressure. */
  INFERENCE_STATUS(true),
  /** Unreadable or invalid KV handoffs. */
  KV_HANDOFF(true),
  /** Failed preflight and served anyway ({@code --preflight=warn}): nothing it answered is trusted yet. */
  PREFLIGHT(true);

  private final boolean needsInferenceProbe;

  OutCause(boolean needsInferenceProbe) {
    this.needsInferenceProbe = needsInferenceProbe;
  }

  /** True when only a passing inference probe may readmit; false when a health check may. */
  boolean needsInferenceProbe() {
    return needsInferenceProbe;
  }

  /**
   * True for the engine having gone away (unreachable, or silent to liveness checks), which under
   * whole-wave policy means a restart. A failed health check after a timeout or overload streak is
   * not one: a busy engine answers health checks slowly too.
   */
  boolean isDeparture() {
    return this == CONNECTION || this == LIVENESS;
  }

  static OutCause of(FailureClass cls) {
    return switch (cls) {
      case CONNECTION -> CONNECTION;
      case STREAM -> STREAM;
      case INFERENCE_STATUS -> INFERENCE_STATUS;
      case KV_HANDOFF -> KV_HANDOFF;
      default -> HEALTH_VERIFY;
    };
  }

  /**
   * The cause a shared verdict names; a name this build does not know (a newer replica's) is
   * taken as needing an inference probe, the stricter way back.
   */
  static OutCause fromWire(@org.jspecify.annotations.Nullable String name) {
    if (name != null) {
      for (OutCause c : values()) {
        if (c.wireName().equals(name)) {
          return c;
        }
      }
    }
    return STREAM;
  }

  String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
