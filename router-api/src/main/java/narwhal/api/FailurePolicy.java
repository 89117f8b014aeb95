package narwhal.api;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The router's one failure policy: what each {@link FailureClass} means for a retry, for the
 * breaker and for quarantine, and what a client of either front-end receives for an error. Every
 * site that acts on a failure reads this table instead of deciding for itself: the request's
 * retry and quarantine decisions, the breaker's streak counting and its remedy, and the HTTP and
 * gRPC front-ends' status and code.
 *
 * <p>The client's HTTP status is not a column of the class table because the spec maps it from
 * the evidence, not from the class: an engine 408 and an engine 429 are both {@code overload},
 * but the first is 504 and the second 502; an error object inside a 200 stream keeps its own
 * status; an engine's own rejection is relayed with its status. The failure carries the status
 * its evidence gave it, and {@link #grpcCode(int)} (the second half of this table) turns any
 * status into the code a gRPC client gets, so both front-ends report one failure the same way.
 *
 * <p>Retryability is the class's ceiling: a fault of a class marked retryable may still be one a
 * fresh attempt would only repeat (the engine refused the router's credentials, or sent a stream
 * no engine of its dialect should send), and the failure says so; a class marked not retryable is
 * never retried.
 */
public final class FailurePolicy {

  /** What the breaker does when one engine's streak in a class reaches {@code eject_after}. */
  public enum BreakerRemedy {
    /** Take the engine out at once: it could not be reached. */
    EJECT,
    /** Ask {@code /health}; take it out only if that fails (a busy engine is slow, not broken). */
    VERIFY_WITH_HEALTH_CHECK,
    /** Hold it out of placement until a real inference through it passes. */
    HOLD_UNTIL_INFERENCE_PROBE,
    /** Not an engine fault: the engine answered the request itself, which proves it is up. */
    COUNTS_AS_ALIVE,
    /** Not an engine fault and no evidence either way (the router's own limit was exceeded). */
    NONE
  }

  /**
   * One row of the table.
   *
   * @param retryable whether a fresh attempt (before output is visible) may fix a fault of this class
   * @param quarantines whether {@code recovery.failure_quarantine_s} keeps the engine out afterwards
   * @param remedy what the breaker does about a streak of this class
   */
  public record Rule(boolean retryable, boolean quarantines, BreakerRemedy remedy) {

    /** Whether the breaker keeps a streak for this class (engine faults only). */
    public boolean countsTowardBreaker() {
      return remedy != BreakerRemedy.COUNTS_AS_ALIVE && remedy != BreakerRemedy.NONE;
    }
  }

  private static final Map<FailureClass, Rule> TABLE = table();
  private static final Set<FailureClass> COUNTED = counted();

  private FailurePolicy() {}

  private static Map<FailureClass, Rule> table() {
    Map<FailureClass, Rule> t = new EnumMap<>(FailureClass.class);
    //       class                          retryable  quarantines  breaker remedy
    t.put(FailureClass.CONNECTION, new Rule(true, true, BreakerRemedy.EJECT));
    t.put(FailureClass.TIMEOUT, new Rule(true, true, BreakerRemedy.VERIFY_WITH_HEALTH_CHECK));
    t.put(FailureClass.OVERLOAD, new Rule(true, true, BreakerRemedy.VERIFY_WITH_HEALTH_CHECK));
    t.put(FailureClass.STREAM, new Rule(true, true, BreakerRemedy.HOLD_UNTIL_INFERENCE_PROBE));
    t.put(FailureClass.INFERENCE_STATUS, new Rule(true, true, BreakerRemedy.HOLD_UNTIL_INFERENCE_PROBE));
    // The producer's descriptor was unusable: a new attempt would need a new producer and the spec
    // retries transport errors, 408/429/5xx and handoff expiry only.
    t.put(FailureClass.KV_HANDOFF, new Rule(false, true, BreakerRemedy.HOLD_UNTIL_INFERENCE_PROBE));
    // About the client's request, not the engine: quarantining would let one bad request take a
    // healthy engine out of placement.
    t.put(FailureClass.REJECTED, new Rule(false, false, BreakerRemedy.COUNTS_AS_ALIVE));
    // The router's own size rule; the engine did nothing wrong, and a retry would be as large.
    t.put(FailureClass.RESPONSE_LIMIT, new Rule(false, false, BreakerRemedy.NONE));
    if (t.size() != FailureClass.values().length) {
      throw new AssertionError("every failure class needs a row: " + t.keySet());
    }
    return Collections.unmodifiableMap(t);
  }

  private static Set<FailureClass> counted() {
    Set<FailureClass> s = EnumSet.noneOf(FailureClass.class);
    TABLE.forEach((cls, rule) -> {
      if (rule.countsTowardBreaker()) {
        s.add(cls);
      }
    });
    return Collections.unmodifiableSet(s);
  }

  /** The row for {@code cls}. */
  public static Rule of(FailureClass cls) {
    return TABLE.get(cls);
  }

  /** The classes the breaker keeps streaks for, in declaration order. */
  public static Set<FailureClass> breakerClasses() {
    return COUNTED;
  }

  /** The canonical (gRPC) code for {@code error}, which carries the HTTP status the client gets. */
  public static CanonicalCode grpcCode(RouterError error) {
    return grpcCode(error.status());
  }

  /**
   * The status half of the table. Bad input (400, and 413/422, which a client fixes the same way)
   * is INVALID_ARGUMENT; admission refusal (429) RESOURCE_EXHAUSTED, worth retrying after the
   * {@code retry-after} it carries; engine faults and missing engines (502, 503) UNAVAILABLE;
   * every timeout-shaped failure (504, 408) DEADLINE_EXCEEDED. Unlisted 4xx are
   * FAILED_PRECONDITION (the request cannot succeed as it is) and unlisted 5xx INTERNAL.
   */
  public static CanonicalCode grpcCode(int status) {
    switch (status) {
      case 400:
      case 413:
      case 422:
        return CanonicalCode.INVALID_ARGUMENT;
      case 401:
        return CanonicalCode.UNAUTHENTICATED;
      case 403:
        return CanonicalCode.PERMISSION_DENIED;
      case 404:
        return CanonicalCode.NOT_FOUND;
      case 405:
      case 501:
        return CanonicalCode.UNIMPLEMENTED;
      case 408:
      case 504:
        return CanonicalCode.DEADLINE_EXCEEDED;
      case 409:
        return CanonicalCode.ABORTED;
      case 429:
        return CanonicalCode.RESOURCE_EXHAUSTED;
      case 499:
        return CanonicalCode.CANCELLED;
      case 500:
        return CanonicalCode.INTERNAL;
      case 502:
      case 503:
        return CanonicalCode.UNAVAILABLE;
      default:
        if (status >= 400 && status < 500) {
          return CanonicalCode.FAILED_PRECONDITION;
        }
        if (status >= 500 && status < 600) {
          return CanonicalCode.INTERNAL;
        }
        throw new IllegalArgumentException("not an error status: " + status);
    }
  }

  /**
   * The HTTP status line an HTTP client gets for {@code error}: the status its evidence gave it,
   * as the gRPC front-end reports it in {@code narwhal-http-status} next to {@link #grpcCode}.
   */
  public static int httpStatus(RouterError error) {
    return error.status();
  }
}
