package narwhal.core.control;

import java.util.Locale;

/** What one controller decision came to: the {@code outcome} of its journal row and metric. */
enum Outcome {
  /** A role move was applied. */
  MOVED,
  /** A move was decided and recorded but not applied ({@code controller.advisory}). */
  ADVISORY,
  /** The rules and the score called for a move that a guard stopped. */
  BLOCKED,
  /** The rules and the score call for a move that still needs confirmations. */
  PENDING,
  /** Evaluated: no move called for. */
  STEADY,
  /** Not evaluated: a pool has no profiled engine in placement, so its load is unknown. */
  UNPRICED;

  String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
