package narwhal.core.control;

import java.util.Locale;

/**
 * Why the controller moves an engine, as the journal's {@code rule} spells it. The five load
 * rules are the reference's names; docs/profiles-and-controller.md "Reading the controller" defines each. The
 * last three are the pool repairs, which act on placement alone and need no profile.
 */
enum MoveRule {
  /** D→P: the prefill pool's load held at or above {@code expand}. */
  PROJECTED_TTFT_RECOVERY,
  /** P→D: the decode pool's load held at or above {@code expand}, whatever prefill's load is. */
  MIXED_PRESSURE,
  /** P→D: prefill load ≤ {@code shrink} ≤ decode load held (Alg. 2's second clause). */
  SOURCE_SHRINK,
  /** D→P: decode load ≤ {@code shrink} ≤ prefill load held (the mirror of source_shrink). */
  SETTLED_DEPARTURE,
  /** Either way: no load rule fires, demand is steady and an adjacent split scores better. */
  STEADY_DEMAND,
  /** A pool below its floor gets one engine from the other pool. */
  FLOOR_REPAIR,
  /** A role with no engine left in placement: an engine of the other role takes both roles. */
  EMPTY_ROLE_FALLBACK,
  /** The role an engine covered by fallback has an engine again: it returns to its own role. */
  FALLBACK_RESTORED;

  String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
