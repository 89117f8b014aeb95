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
 * <p>The evidence a failure carries is its {@link FailureOrigin} and, when the engine reported
 * one, the engine's own status. {@link #engineStatus} is the one place an engine's status becomes a
 * class, a journal reason and the client's status, whether it came as the response's status or
 * inside a 200 stream; {@link #requestMayCause} decides which failures can be a request's own doing
 * (poisoned requests); {@link #firstTokenTimeout} and {@link #waitedOnProducer} classify the two
 * timeouts whose meaning depends on what the engine did before them.
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
   * @param provesUnreachable whether one such failure shows the engine cannot be reached (readiness
   *     reports it at once, whatever the breaker decides)
   */
  public record Rule(boolean retryable, boolean quarantines, BreakerRemedy remedy, boolean provesUnreachable) {

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
    //       class                          retryable  quarantines  breaker remedy        unreachable
    t.put(FailureClass.CONNECTION, new Rule(true, true, BreakerRemedy.EJECT, true));
    t.put(FailureClass.TIMEOUT, new Rule(true, true, BreakerRemedy.VERIFY_WITH_HEALTH_CHECK, false));
    t.put(FailureClass.OVERLOAD, new Rule(true, true, BreakerRemedy.VERIFY_WITH_HEALTH_CHECK, false));
    t.put(FailureClass.STREAM, new Rule(true, true, BreakerRemedy.HOLD_UNTIL_INFERENCE_PROBE, false));
    t.put(FailureClass.INFERENCE_STATUS, new Rule(true, true, BreakerRemedy.HOLD_UNTIL_INFERENCE_PROBE, false));
    // The producer's descriptor was unusable: a new attempt would need a new producer and the spec
    // retries transport errors, 408/429/5xx and handoff expiry only.
    t.put(FailureClass.KV_HANDOFF, new Rule(false, true, BreakerRemedy.HOLD_UNTIL_INFERENCE_PROBE, false));
    // About the client's request, not the engine: quarantining would let one bad request take a
    // healthy engine out of placement.
    t.put(FailureClass.REJECTED, new Rule(false, false, BreakerRemedy.COUNTS_AS_ALIVE, false));
    // The router's own size rule; the engine did nothing wrong, and a retry would be as large.
    t.put(FailureClass.RESPONSE_LIMIT, new Rule(false, false, BreakerRemedy.NONE, false));
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

  /**
   * What an engine's own status means.
   *
   * @param failureClass the class the breaker, retries and quarantine read
   * @param reason the journal's failure reason
   * @param clientStatus the HTTP status the client gets
   * @param mayDifferNextTime false when a fresh attempt would only repeat it (the engine refused the
   *     router's credentials, or used a status no answer uses)
   */
  public record EngineStatus(FailureClass failureClass, String reason, int clientStatus, boolean mayDifferNextTime) {}

  /**
   * The one mapping from an engine's status to a failure, wherever the status came:
   *
   * <ul>
   *   <li>408 is back-pressure ({@code overload}, {@code engine_overloaded}); the client gets 504;
   *   <li>429 and 503 are back-pressure (busy or starting), not a broken engine; the client gets 502;
   *   <li>401 and 403 refuse the router's own credentials: {@code inference_status}, {@code
   *       engine_credentials}, never retried (another attempt sends the same key); the client gets
   *       502, since relaying it would ask the client to fix credentials it never sent the engine;
   *   <li>504 is the engine's own timeout ({@code timeout}, {@code engine_timeout}), 504;
   *   <li>other 5xx ({@code inference_status}, {@code engine_error}), 502;
   *   <li>other 4xx are the engine's judgement of the request ({@code rejected}, {@code
   *       engine_rejected}), relayed with their status;
   *   <li>anything else as a response status is no answer ({@code invalid_response}, 502, never retried).
   * </ul>
   *
   * <p>Inside a 200 stream ({@link FailureOrigin#STREAM_EVENT}) the spec keeps the error object's
   * own status for the client: its code when 400–599, else 500; class and reason are the rows
   * above for that status, so a 503 in a stream is back-pressure exactly as a 503 response is.
   *
   * @param origin {@link FailureOrigin#HEADERS} or {@link FailureOrigin#STREAM_EVENT}
   */
  public static EngineStatus engineStatus(int status, FailureOrigin origin) {
    boolean inStream = switch (origin) {
      case HEADERS -> false;
      case STREAM_EVENT -> true;
      default -> throw new IllegalArgumentException("an engine reports a status in its headers or its stream, not at "
          + origin.wireName());
    };
    int s = inStream && (status < 400 || status > 599) ? 500 : status;
    if (s == 408) {
      return new EngineStatus(FailureClass.OVERLOAD, "engine_overloaded", inStream ? s : 504, true);
    }
    if (s == 429 || s == 503) {
      return new EngineStatus(FailureClass.OVERLOAD, "engine_overloaded", inStream ? s : 502, true);
    }
    if (refusesCredentials(s)) {
      return new EngineStatus(FailureClass.INFERENCE_STATUS, "engine_credentials", inStream ? s : 502, false);
    }
    if (s == 504) {
      return new EngineStatus(FailureClass.TIMEOUT, "engine_timeout", 504, true);
    }
    if (s >= 500 && s <= 599) {
      return new EngineStatus(FailureClass.INFERENCE_STATUS, "engine_error", inStream ? s : 502, true);
    }
    if (s >= 400 && s <= 499) {
      return new EngineStatus(FailureClass.REJECTED, "engine_rejected", s, true);
    }
    return new EngineStatus(FailureClass.INFERENCE_STATUS, "invalid_response", 502, false);
  }

  /** HTTP 401 and 403 from an engine: it refused the router's own credentials, whatever the client sent. */
  public static boolean refusesCredentials(int status) {
    return status == 401 || status == 403;
  }

  /**
   * Whether a failure can be the request's own doing, so that failing the same way on two engines
   * of a role marks the request poisoned. Not: a connection never made (nothing of the request
   * reached the engine), back-pressure (it describes the engine's load), and classes the breaker
   * does not count (an engine's judgement of the request and the router's size limit are never
   * retried and never blamed on the engine anyway).
   */
  public static boolean requestMayCause(FailureClass cls, FailureOrigin origin) {
    return of(cls).countsTowardBreaker() && cls != FailureClass.OVERLOAD && origin != FailureOrigin.CONNECT;
  }

  /**
   * The class of a decode whose first token did not come in time. Output without tokens (beyond
   * the opening role chunk) means the engine is alive but not generating: back-pressure ({@code
   * overload}). Silence, or only the role chunk, is a broken stream ({@code stream}).
   */
  public static FailureClass firstTokenTimeout(boolean sawOtherOutput) {
    return sawOtherOutput ? FailureClass.OVERLOAD : FailureClass.STREAM;
  }

  /**
   * Whose fault a failed decode is in a concurrent handoff (SGLang: both legs at once) whose
   * prefill has still not answered. True when the decode was waiting on the producer: the consumer
   * accepted the stream (a 200 head), then timed out (client status 504) without a token, so the
   * failure is the producer's, a prefill timeout. A consumer that answered an error status itself
   * (408 and 504 included), or never sent its head within the first-token budget, failed on its
   * own: the spec counts response-header delays against the decode's first-token budget.
   */
  public static boolean waitedOnProducer(FailureOrigin origin, int clientStatus, boolean consumerAccepted,
      int tokensSeen) {
    return tokensSeen == 0 && consumerAccepted && clientStatus == 504 && origin != FailureOrigin.HEADERS;
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
