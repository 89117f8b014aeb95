package narwhal.core.control;

import java.util.Locale;

/** The guard that stopped a move the rules called for, as the journal's {@code blocked_by} spells it. */
enum Blocker {
  /** An engine of either pool (in placement) has no profile: the loads cannot be priced. */
  PROFILE_COVERAGE,
  /** The source pool would fall below {@code min_prefill}/{@code min_decode}, or below one engine. */
  FLOOR,
  /** Every engine that could move is pinned ({@code engines[].pin}), or the pool has only role both. */
  PIN,
  /** A repair: every unpinned engine of the other role is out of placement (held or ejected). */
  HOLD,
  /** The engine that would move entered its role less than {@code dwell_s} ago. */
  DWELL,
  /** A P→D move within {@code cooldown_s} of the last one, and no panic to bypass it. */
  COOLDOWN,
  /** The D→P donor holds more resident decodes than {@code flip_resident_guard}. */
  DONOR_RESIDENT,
  /** The D→P donor's own decode load is not below {@code shrink}. */
  DONOR_LOAD,
  /** D→P without two closed arrival-evidence windows that each saw enough arrivals. */
  EVIDENCE,
  /** D→P while decode demand rose by more than {@code demand_rise_tolerance}. */
  DEMAND_RISING;

  String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
