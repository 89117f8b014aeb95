package narwhal.core.fleet;

import java.util.Objects;
import narwhal.config.EngineRole;

/**
 * One role move the role controller applied, as {@code /narwhal/state} lists it.
 *
 * @param atEpochSeconds when, on the wall clock
 * @param iid the engine moved
 * @param from its role before
 * @param to its role after
 * @param rule the rule that moved it (e.g. {@code projected_ttft_recovery}, {@code floor_repair})
 * @param reversal whether the move undid the same engine's previous move soon after it
 */
public record RoleMove(double atEpochSeconds, String iid, EngineRole from, EngineRole to, String rule,
    boolean reversal) {

  public RoleMove {
    Objects.requireNonNull(iid, "iid");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(rule, "rule");
  }
}
