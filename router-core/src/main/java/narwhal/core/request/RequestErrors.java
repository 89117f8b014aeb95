package narwhal.core.request;

import narwhal.api.RouterError;
import narwhal.core.legs.TokenCounts;
import narwhal.spi.PrefillResult;
import narwhal.time.Deadline;
import narwhal.time.Durations;
import org.jspecify.annotations.Nullable;

/**
 * The words of the errors a request's own rules produce (its deadline, its handoff's age, no
 * engine left), as the client and the journal read them. Engine faults are worded where they are
 * made ({@code EngineFailures}); admission's refusals by {@link AdmissionErrors}.
 */
final class RequestErrors {

  private RequestErrors() {}

  /** 503: no engine in placement can run {@code phase}; avoidances alone never get here ({@code Fleet}). */
  static RouterError noEngine(String phase, @Nullable String firstFailedIid) {
    String message = firstFailedIid == null
        ? "no " + phase + " engine is available"
        : "no " + phase + " engine is in placement for this request's retry, which followed a failure on engine "
            + firstFailedIid;
    return RouterError.of(503, "backend_unavailable", "backend_unavailable", message).withRetryAfter(1);
  }

  /**
   * 504: the request's deadline passed, before the first token or after {@code tokens} of output.
   * What bounded it is spelled out only now, not on every request's way to its first token.
   */
  static RouterError deadlinePassed(Deadline deadline, long arrivalNanos, boolean outputVisible, int tokens) {
    String limit = deadline.describe(arrivalNanos);
    return outputVisible
        ? RouterError.of(504, "decode", "request_expired",
            "request deadline of " + limit + " passed after " + TokenCounts.describe(tokens))
        : RouterError.of(504, "request_expired", "request_expired",
            "request deadline of " + limit + " passed before the first token");
  }

  /**
   * Why a handoff is too old to send to a consumer at {@code nowNanos} (its age from the start of
   * the producer leg over {@code boundNanos}, derived from {@code engine_contract.kv_lease_duration_s}),
   * or null when it is not (or no bound is set).
   */
  static @Nullable String handoffExpiry(PrefillResult handoff, long nowNanos, long boundNanos) {
    if (boundNanos <= 0 || handoff.ageNanos(nowNanos) <= boundNanos) {
      return null;
    }
    return "KV handoff expired before decode dispatch: it was " + Durations.describe(handoff.ageNanos(nowNanos))
        + " old, over the bound of " + Durations.describe(boundNanos);
  }

  /** 504 for a request whose last handoff expired and which may not retry. */
  static RouterError handoffExpired(String message) {
    return RouterError.of(504, "handoff_expired", "handoff_expired", message);
  }
}
