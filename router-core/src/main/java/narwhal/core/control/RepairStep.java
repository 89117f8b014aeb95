package narwhal.core.control;

import narwhal.config.EngineRole;
import narwhal.core.fleet.EngineState;
import org.jspecify.annotations.Nullable;

/**
 * One pool repair: move {@code engine} to {@code to} under {@code rule}, or, when {@code engine}
 * is null, the repair {@code rule} needed but {@code blockedBy} stopped.
 *
 * @param engine the engine to move, or null when blocked
 * @param to the role it takes (the short pool's role, or {@code both} for a fallback)
 * @param rule {@code floor_repair}, {@code empty_role_fallback} or {@code fallback_restored}
 * @param blockedBy why no engine could be moved, or null
 * @param candidate when blocked, the engine the repair would have taken (pinned, or out of
 *     placement); null when the other pool has none
 */
record RepairStep(@Nullable EngineState engine, EngineRole to, MoveRule rule, @Nullable Blocker blockedBy,
    @Nullable String candidate) {

  RepairStep(@Nullable EngineState engine, EngineRole to, MoveRule rule, @Nullable Blocker blockedBy) {
    this(engine, to, rule, blockedBy, engine == null ? null : engine.iid());
  }
}
