package narwhal.core.checks;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import narwhal.spi.Phase;
import org.jspecify.annotations.Nullable;

/**
 * What one engine check found.
 *
 * @param check which check ran: {@link EngineChecks#HEALTH}, {@link EngineChecks#MODEL}, ...
 * @param subject the engine's iid, or {@code "p0 -> d0"} for a KV transfer pair
 * @param outcome passed, failed, or inconclusive (the check could not judge the engine, e.g. the
 *     peer it needed failed first)
 * @param detail one line for an operator: what passed ({@code "health 3 ms"}) or what failed and
 *     what to fix
 * @param failedPhase for a failed probe, the leg that failed; null otherwise
 * @param failedIid for a failed check, the engine blamed; for a KV transfer pair this tells a
 *     producer failure from a consumer failure
 * @param elapsedNanos how long the check took, on the check's scheduler clock
 */
public record CheckResult(
    String check,
    String subject,
    Outcome outcome,
    String detail,
    @Nullable Phase failedPhase,
    @Nullable String failedIid,
    long elapsedNanos) {

  /** A check's verdict. */
  public enum Outcome {
    PASSED,
    FAILED,
    INCONCLUSIVE
  }

  public CheckResult {
    Objects.requireNonNull(check, "check");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(detail, "detail");
  }

  static CheckResult passed(String check, String subject, String detail, long elapsedNanos) {
    return new CheckResult(check, subject, Outcome.PASSED, detail, null, null, elapsedNanos);
  }

  static CheckResult failed(String check, String iid, String detail, long elapsedNanos) {
    return new CheckResult(check, iid, Outcome.FAILED, detail, null, iid, elapsedNanos);
  }

  public boolean passed() {
    return outcome == Outcome.PASSED;
  }

  public boolean failed() {
    return outcome == Outcome.FAILED;
  }

  public long elapsedMillis() {
    return TimeUnit.NANOSECONDS.toMillis(elapsedNanos);
  }

  /**
   * The verdict for engine {@code iid}: a failure blamed on another engine (a KV transfer whose
   * producer failed, judged for its consumer) cannot condemn {@code iid}, so it is inconclusive.
   */
  public Outcome outcomeFor(String iid) {
    if (outcome == Outcome.FAILED && failedIid != null && !failedIid.equals(iid)) {
      return Outcome.INCONCLUSIVE;
    }
    return outcome;
  }

  /** The same result re-labelled (a step of a longer check reported as that check). */
  CheckResult as(String newCheck, String newSubject, String newDetail, long newElapsedNanos) {
    return new CheckResult(newCheck, newSubject, outcome, newDetail, failedPhase, failedIid, newElapsedNanos);
  }

  /** The same result with another outcome. */
  CheckResult withOutcome(Outcome newOutcome) {
    return new CheckResult(check, subject, newOutcome, detail, failedPhase, failedIid, elapsedNanos);
  }
}
