package narwhal.core.fleet;

import java.util.Locale;

/**
 * Whether the breaker lets placement use an engine. Quarantine is separate and shorter-lived: it
 * is a per-failure timer (see {@link EngineState#isQuarantined}), not a breaker decision.
 */
public enum EngineCondition {
  /** In placement. */
  ACTIVE,
  /** Out of placement after a stream, inference-status or KV-handoff streak, until an inference probe passes. */
  HELD,
  /** Out of placement: unreachable, failed its health verification, or failed a probe. Re-probed on the readmission cadence. */
  EJECTED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
