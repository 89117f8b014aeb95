package narwhal.core.control;

import narwhal.config.EngineRole;
import org.jspecify.annotations.Nullable;

/**
 * One controller decision worth a journal row: a move (applied or advisory), or a move a guard
 * blocked.
 *
 * @param outcome moved, advisory or blocked
 * @param iid the engine moved (or that would move), or null when blocked before one was chosen
 * @param from the role it leaves
 * @param to the role it takes
 * @param rule the rule behind the move
 * @param loads the pool loads the decision was made on
 * @param before the current split's score (null for repairs, which are not scored)
 * @param after the moved split's score (null for repairs)
 * @param blockedBy the guard that blocked it, or null
 * @param reversal whether an applied move undid the engine's previous move within the reversal
 *     window
 * @param candidate for a blocked move, the engine it would have taken (the source pool's cheapest
 *     flip, or the engine whose own guard blocked it); null when the pool had none
 */
record Decision(
    Outcome outcome,
    @Nullable String iid,
    EngineRole from,
    EngineRole to,
    MoveRule rule,
    PoolLoads loads,
    @Nullable SplitScore before,
    @Nullable SplitScore after,
    @Nullable Blocker blockedBy,
    boolean reversal,
    @Nullable String candidate) {

  Decision(Outcome outcome, @Nullable String iid, EngineRole from, EngineRole to, MoveRule rule, PoolLoads loads,
      @Nullable SplitScore before, @Nullable SplitScore after, @Nullable Blocker blockedBy, boolean reversal) {
    this(outcome, iid, from, to, rule, loads, before, after, blockedBy, reversal, iid);
  }

  /** What identifies a repeat of this decision: blocked and advisory rows are written once per run. */
  String repeatKey() {
    return outcome + "/" + iid + "/" + from + "/" + to + "/" + rule + "/" + blockedBy;
  }
}
