package narwhal.core.request;

import java.util.Locale;

/**
 * Whether a failed attempt was followed by a retry, and if not why: the {@code retry_reason} of
 * each entry in a journal row's {@code attempt_failures} (the reference's vocabulary).
 */
enum RetryReason {
  /** A fresh attempt was scheduled. */
  ALLOWED,
  /** Output had reached the client: never retried. */
  OUTPUT_STARTED,
  /** Not a transient fault (e.g. an engine's 4xx rejection, an unusable handoff). */
  NON_TRANSIENT,
  /** {@code serving.max_attempts} reached. */
  ATTEMPT_LIMIT,
  /** The original deadline could not hold even the backoff floor. */
  ORIGINAL_DEADLINE,
  /** No whole credit left in the shared {@code serving.retry_budget}. */
  SHARED_BUDGET,
  /**
   * The attempt failed the way an earlier attempt failed on another engine of the same role
   * ({@link FailureSignature}): the failure follows the request, not the engines.
   */
  POISONED;

  /** The journal's spelling, e.g. {@code output_started}. */
  String journalName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
