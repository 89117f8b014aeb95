package narwhal.core.request;

import narwhal.core.retry.Backoff;
import narwhal.core.retry.RetryBudget;

/**
 * Whether a failed attempt gets another. The fault's retryability is the failure policy's (read
 * through {@code EngineFailure.isTransient()}); the gate adds what only the request knows: the
 * attempts it has used, the time left before its deadline, and the shared credit pool.
 */
final class RetryGate {

  /** The decision, and the backoff before the retry when it is {@link RetryReason#ALLOWED}. */
  record Decision(RetryReason reason, long delayNanos) {
    boolean allowed() {
      return reason == RetryReason.ALLOWED;
    }
  }

  private final Backoff backoff;
  private final RetryBudget budget;
  private final int maxAttempts;

  RetryGate(Backoff backoff, RetryBudget budget, int maxAttempts) {
    this.backoff = backoff;
    this.budget = budget;
    this.maxAttempts = maxAttempts;
  }

  /**
   * Allowed when the fault is transient, an attempt remains, the original deadline leaves room for
   * the backoff and a shared credit is free (taken last, so a refused retry spends none).
   */
  Decision decide(boolean transientFault, int attempts, long timeLeftNanos) {
    boolean attemptLeft = attempts < maxAttempts;
    long delay = transientFault && attemptLeft ? backoff.delayNanos(attempts, timeLeftNanos) : Backoff.NO_TIME_LEFT;
    RetryReason reason;
    if (!transientFault) {
      reason = RetryReason.NON_TRANSIENT;
    } else if (!attemptLeft) {
      reason = RetryReason.ATTEMPT_LIMIT;
    } else if (delay == Backoff.NO_TIME_LEFT) {
      // The backoff floor would reach the deadline: the failure is returned as it is, not
      // replaced by a deadline 504 from a retry that never had time to run.
      reason = RetryReason.ORIGINAL_DEADLINE;
    } else if (!budget.tryAcquire()) {
      reason = RetryReason.SHARED_BUDGET;
    } else {
      reason = RetryReason.ALLOWED;
    }
    return new Decision(reason, delay);
  }
}
