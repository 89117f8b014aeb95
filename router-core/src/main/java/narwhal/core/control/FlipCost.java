package narwhal.core.control;

import java.util.Comparator;
import narwhal.config.EngineRole;
import narwhal.core.fleet.EngineState;

/**
 * Arrow's Alg. 3: which engine of a pool moves. The cheapest flip is the engine with the least
 * resident work in the role it leaves, compared lexicographically: resident legs of that role,
 * then their tokens, then the iid (so equal engines always yield the same choice).
 */
final class FlipCost {

  private FlipCost() {}

  /** Cheapest first, for engines leaving {@code role}. */
  static Comparator<EngineState> leaving(EngineRole role) {
    boolean prefill = role == EngineRole.PREFILL;
    Comparator<EngineState> legs = Comparator.comparingInt(e -> prefill ? e.residentPrefill() : e.residentDecode());
    return legs
        .thenComparingLong(e -> prefill ? e.residentPrefillTokens() : e.residentDecodeTokens())
        .thenComparing(EngineState::iid);
  }
}
