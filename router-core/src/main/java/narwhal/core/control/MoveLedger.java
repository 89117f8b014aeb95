package narwhal.core.control;

import java.util.HashMap;
import java.util.Map;
import narwhal.config.EngineRole;

/**
 * The controller's memory of its own moves: when each engine last changed role and from what
 * (for {@code dwell_s} and reversal counting), and when the last P→D move was (for {@code
 * cooldown_s}). Engines the controller never moved have been in their role since before it
 * started: no dwell holds them. Confined to the controller's loop.
 */
final class MoveLedger {

  private record LastMove(EngineRole from, EngineRole to, long atNanos) {}

  private final long dwellNanos;
  private final long reversalWindowNanos;
  private final Map<String, LastMove> last = new HashMap<>();
  private long lastPrefillToDecodeNanos;
  private boolean anyPrefillToDecode;

  MoveLedger(long dwellNanos, long reversalWindowNanos) {
    this.dwellNanos = dwellNanos;
    this.reversalWindowNanos = reversalWindowNanos;
  }

  /** True while {@code iid} has been in its role for less than {@code dwell_s}. */
  boolean dwelling(String iid, long now) {
    LastMove m = last.get(iid);
    return m != null && now - m.atNanos() < dwellNanos;
  }

  /** Nanoseconds since the last P→D move, or {@link Long#MAX_VALUE} when there was none. */
  long sinceLastPrefillToDecode(long now) {
    return anyPrefillToDecode ? now - lastPrefillToDecodeNanos : Long.MAX_VALUE;
  }

  /** True when moving {@code iid} from {@code from} to {@code to} now would reverse its previous move. */
  boolean wouldReverse(String iid, EngineRole from, EngineRole to, long now) {
    LastMove before = last.get(iid);
    return before != null && before.from() == to && before.to() == from
        && now - before.atNanos() <= reversalWindowNanos;
  }

  /**
   * Notes a move of {@code iid}; returns true when it reverses the engine's previous move (back
   * to the role it left) within the reversal window.
   */
  boolean moved(String iid, EngineRole from, EngineRole to, long now) {
    LastMove before = last.put(iid, new LastMove(from, to, now));
    if (from == EngineRole.PREFILL && to == EngineRole.DECODE) {
      anyPrefillToDecode = true;
      lastPrefillToDecodeNanos = now;
    }
    return before != null && before.from() == to && before.to() == from
        && now - before.atNanos() <= reversalWindowNanos;
  }
}
