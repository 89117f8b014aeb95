package narwhal.core.legs;

import narwhal.api.FailureClass;
import narwhal.api.FailureOrigin;
import narwhal.api.FailurePolicy;
import narwhal.spi.Phase;
import narwhal.spi.TransportFailure;
import narwhal.time.Durations;
import org.jspecify.annotations.Nullable;

/**
 * Every {@link EngineFailure} is made here, from what went wrong on the wire: the evidence (its
 * {@link FailureOrigin}, the engine's own status) is recorded on the failure, and what it means
 * (class, reason, the client's status, whether a fresh attempt could differ) is {@link
 * FailurePolicy}'s. What this class adds is the words: the client's message names the engine by
 * iid and the phase, the operator's adds the transport's own detail.
 */
public final class EngineFailures {

  /** The configuration key an operator fixes when an engine refuses the router's credentials. */
  public static final String CREDENTIALS_KEY = "engine.engine_api_key_env";

  private EngineFailures() {}

  /**
   * What an operator reads when {@code who} (e.g. {@code "prefill engine p0"}) answered 401 or 403:
   * the router's key is missing or is not the one the engine was started with.
   */
  public static String credentialsRefused(String who, int status) {
    return who + " refused the router's credentials (HTTP " + status + "): check " + CREDENTIALS_KEY
        + " (it must name a variable holding the key the engine was started with, e.g. vLLM's --api-key)";
  }

  /** An engine answered a leg with a non-200 status. */
  public static EngineFailure fromStatus(Phase phase, String iid, int status, String engineMessage) {
    FailurePolicy.EngineStatus rule = FailurePolicy.engineStatus(status, FailureOrigin.HEADERS);
    String leg = phase.wireName() + " engine " + iid;
    String what = rule.reason().equals("engine_credentials") ? credentialsRefused(leg, status)
        : leg + " answered HTTP " + status + (engineMessage.isEmpty() ? "" : ": " + engineMessage);
    return new EngineFailure(phase, FailureOrigin.HEADERS, rule.failureClass(), rule.clientStatus(), status,
        rule.reason(), iid, what, null, rule.mayDifferNextTime(), null);
  }

  /** An error object inside a 200 stream, with the integer {@code code} it carried (0: none). */
  public static EngineFailure fromStreamError(String iid, int code, String engineMessage, int tokensSeen) {
    FailurePolicy.EngineStatus rule = FailurePolicy.engineStatus(code, FailureOrigin.STREAM_EVENT);
    return new EngineFailure(Phase.DECODE, FailureOrigin.STREAM_EVENT, rule.failureClass(), rule.clientStatus(),
        code, rule.reason(), iid, "decode engine " + iid + " reported an error in its stream after "
            + TokenCounts.describe(tokensSeen) + ": " + engineMessage, null, rule.mayDifferNextTime(), null);
  }

  /**
   * A transport failure (connect, reset, oversize, protocol) on a leg. The client reads the leg
   * and the transport's {@linkplain TransportFailure#clientDetail() client detail}; the transport's
   * own message (the engine's URL, the exception) goes only into the operator message.
   */
  public static EngineFailure fromTransport(Phase phase, String iid, TransportFailure f, int tokensSeen) {
    String leg = phase.wireName() + " engine " + iid;
    String detail = f.getMessage();
    switch (f.kind()) {
      case CONNECT_FAILED:
        return new EngineFailure(phase, FailureOrigin.CONNECT, FailureClass.CONNECTION, 502, null,
            "engine_unreachable", iid, leg + " " + clause(f, "could not be connected to"), detail, true, f);
      case CONNECT_TIMEOUT:
        return new EngineFailure(phase, FailureOrigin.CONNECT, FailureClass.TIMEOUT, 504, null,
            "engine_timeout", iid, leg + " " + clause(f, "did not accept a connection in time"), detail, true, f);
      case CONNECTION_CLOSED:
        return new EngineFailure(phase, FailureOrigin.RESPONSE, FailureClass.CONNECTION, 502, null,
            "engine_connection", iid, leg + " closed the connection before the response was complete"
                + (phase == Phase.DECODE ? " (after " + TokenCounts.describe(tokensSeen) + ")" : ""), detail, true, f);
      case BODY_TOO_LARGE:
        return new EngineFailure(phase, FailureOrigin.RESPONSE, FailureClass.RESPONSE_LIMIT, 502, null,
            "response_limit", iid, leg + " " + clause(f, "sent a response over the router's limit"), detail, true, f);
      case PROTOCOL_ERROR:
      default:
        return new EngineFailure(phase, FailureOrigin.RESPONSE, FailureClass.STREAM, 502, null,
            "invalid_response", iid, leg + " " + clause(f, "sent invalid HTTP"), detail, false, f);
    }
  }

  private static String clause(TransportFailure f, String otherwise) {
    String clause = f.clientDetail();
    return clause == null || clause.isBlank() ? otherwise : clause;
  }

  /** The descriptor a producer returned cannot be used for decode. */
  public static EngineFailure kvHandoff(String producerIid, String problem) {
    return new EngineFailure(Phase.PREFILL, FailureOrigin.HANDOFF, FailureClass.KV_HANDOFF, 502, null,
        "invalid_response", producerIid, "unusable KV handoff from prefill engine " + producerIid + ": " + problem,
        null, true, null);
  }

  /** The prefill leg did not answer within {@code serving.prefill_timeout_s}. */
  public static EngineFailure prefillTimeout(String iid, long timeoutNanos) {
    return new EngineFailure(Phase.PREFILL, FailureOrigin.TIMEOUT, FailureClass.TIMEOUT, 504, null, "engine_timeout",
        iid, "prefill engine " + iid + " did not answer within " + Durations.describe(timeoutNanos)
            + " (serving.prefill_timeout_s)", null, true, null);
  }

  /** No first token within {@code engine.first_token_timeout_s}; its class is the policy's. */
  public static EngineFailure firstTokenTimeout(String iid, long timeoutNanos, boolean sawOtherOutput) {
    return new EngineFailure(Phase.DECODE, FailureOrigin.TIMEOUT, FailurePolicy.firstTokenTimeout(sawOtherOutput),
        504, null, "engine_timeout", iid, "no first token within " + Durations.describe(timeoutNanos)
            + " from decode engine " + iid + " (engine.first_token_timeout_s)", null, true, null);
  }

  /** Silence between tokens over {@code engine.decode_read_timeout_s} (output is visible: never retried). */
  public static EngineFailure silence(String iid, long boundNanos, int tokensSeen) {
    return new EngineFailure(Phase.DECODE, FailureOrigin.TIMEOUT, FailureClass.STREAM, 504, null, "engine_timeout",
        iid, "engine went silent between tokens: decode engine " + iid + " sent nothing for "
            + Durations.describe(boundNanos) + " after " + TokenCounts.describe(tokensSeen)
            + " (engine.decode_read_timeout_s)", null, false, null);
  }

  /**
   * A decode stream that broke the stream contract: {@code origin} is {@link FailureOrigin#HEADERS}
   * for a 200 that is no event stream, {@link FailureOrigin#STREAM_EVENT} for an event no engine
   * should send, {@link FailureOrigin#RESPONSE} for a stream that ended without {@code [DONE]}.
   *
   * @param mayDifferNextTime false for what the dialect's engines never send (a fresh attempt would
   *     see it again)
   */
  public static EngineFailure brokenStream(String iid, FailureOrigin origin, String message,
      boolean mayDifferNextTime, @Nullable Throwable cause) {
    return new EngineFailure(Phase.DECODE, origin, FailureClass.STREAM, 502, null, "invalid_response", iid, message,
        null, mayDifferNextTime, cause);
  }

  /**
   * In a concurrent handoff, a decode that was waiting on its producer ({@link
   * FailurePolicy#waitedOnProducer}): the failure becomes the producer's prefill timeout.
   */
  public static EngineFailure producerKeptDecodeWaiting(String producerIid, EngineFailure decodeFailure) {
    String what = "prefill engine " + producerIid + " had not answered when decode engine "
        + decodeFailure.engineIid() + " gave up waiting for the KV cache: ";
    return new EngineFailure(Phase.PREFILL, FailureOrigin.TIMEOUT, FailureClass.TIMEOUT, 504, null, "engine_timeout",
        producerIid, what + decodeFailure.clientMessage(), decodeFailure.operatorDetail(), true, null);
  }

  /**
   * A bug in a dialect or transport: the request still ends cleanly, as a 502. Not retried: the
   * same code would run again. The exception is for operators (log, journal), not clients.
   */
  public static EngineFailure internal(Phase phase, Throwable t) {
    return new EngineFailure(phase, FailureOrigin.ROUTER, FailureClass.INFERENCE_STATUS, 502, null, "internal",
        "router", "internal error in the " + phase.wireName() + " leg", t.toString(), false, t);
  }
}
