package narwhal.core.legs;

import narwhal.spi.Phase;
import narwhal.api.FailureClass;

import narwhal.spi.TransportFailure;

/**
 * Builds {@link EngineFailure}s from what went wrong on the wire, with the spec's mapping from
 * evidence to class and client status. What each class then means for retries, the breaker and
 * quarantine is {@link narwhal.api.FailurePolicy}'s; a {@code false} here only marks a fault a
 * fresh attempt would repeat.
 */
public final class EngineFailures {

  /** The configuration key an operator fixes when an engine refuses the router's credentials. */
  public static final String CREDENTIALS_KEY = "engine.engine_api_key_env";

  private EngineFailures() {}

  /** HTTP 401 and 403: the engine refused the router's own credentials, whatever the client sent. */
  public static boolean refusesCredentials(int status) {
    return status == 401 || status == 403;
  }

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
    String what = phase.wireName() + " engine " + iid + " answered HTTP " + status
        + (engineMessage.isEmpty() ? "" : ": " + engineMessage);
    if (status == 408) {
      return new EngineFailure(phase, FailureClass.OVERLOAD, 504, "engine_overloaded", iid, what, null);
    }
    if (status == 429 || status == 503) {
      // 503 is back-pressure (engine busy or starting), not a broken engine.
      return new EngineFailure(phase, FailureClass.OVERLOAD, 502, "engine_overloaded", iid, what, null);
    }
    if (refusesCredentials(status)) {
      return credentials(phase, iid, status);
    }
    if (status == 504) {
      return new EngineFailure(phase, FailureClass.TIMEOUT, 504, "engine_timeout", iid, what, null);
    }
    if (status >= 500) {
      return new EngineFailure(phase, FailureClass.INFERENCE_STATUS, 502, "engine_error", iid, what, null);
    }
    if (status >= 400) {
      // The engine judged the request itself (e.g. prompt longer than the context): relay it.
      return new EngineFailure(phase, FailureClass.REJECTED, status, "engine_rejected", iid, what, null);
    }
    // A status the protocol does not use for an answer: the engine would send it again.
    return new EngineFailure(phase, FailureClass.INFERENCE_STATUS, 502, "invalid_response", iid, what, false, null);
  }

  /**
   * A 401/403 is the router's fault, not the client's: relaying it would tell the client to fix
   * credentials it never sent to the engine (client auth belongs to the ingress). So it is a 502
   * that names the key to fix. It counts as {@link FailureClass#INFERENCE_STATUS}: the engine is up
   * but will not serve the router, and a hold readmitted only by a passing inference probe is the
   * right remedy. A {@code CONNECTION}-style eject would be wrong twice over: the engine is
   * reachable, and the open {@code /health} endpoint (vLLM does not guard it) would readmit it at
   * once, only for every request to fail again. Not transient: another attempt sends the same key,
   * and a retry that ran out of engines would hide this message behind a 503.
   */
  private static EngineFailure credentials(Phase phase, String iid, int status) {
    return new EngineFailure(phase, FailureClass.INFERENCE_STATUS, 502, "engine_credentials", iid,
        credentialsRefused(phase.wireName() + " engine " + iid, status), false, null);
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
        return new EngineFailure(phase, FailureClass.CONNECTION, 502, "engine_unreachable", iid,
            leg + " " + clause(f, "could not be connected to"), detail, true, f);
      case CONNECT_TIMEOUT:
        return new EngineFailure(phase, FailureClass.TIMEOUT, 504, "engine_timeout", iid,
            leg + " " + clause(f, "did not accept a connection in time"), detail, true, f);
      case CONNECTION_CLOSED:
        return new EngineFailure(phase, FailureClass.CONNECTION, 502, "engine_connection", iid,
            leg + " closed the connection before the response was complete"
                + (phase == Phase.DECODE ? " (after " + TokenCounts.describe(tokensSeen) + ")" : ""), detail, true, f);
      case BODY_TOO_LARGE:
        return new EngineFailure(phase, FailureClass.RESPONSE_LIMIT, 502, "response_limit", iid,
            leg + " " + clause(f, "sent a response over the router's limit"), detail, true, f);
      case PROTOCOL_ERROR:
      default:
        return new EngineFailure(phase, FailureClass.STREAM, 502, "invalid_response", iid,
            leg + " " + clause(f, "sent invalid HTTP"), detail, false, f);
    }
  }

  private static String clause(TransportFailure f, String otherwise) {
    String clause = f.clientDetail();
    return clause == null || clause.isBlank() ? otherwise : clause;
  }

  /** An error object inside a 200 stream: its integer code if 400-599, else 500. */
  public static EngineFailure fromStreamError(String iid, int code, String engineMessage, int tokensSeen) {
    int status = code >= 400 && code <= 599 ? code : 500;
    FailureClass cls = status == 408 || status == 429 ? FailureClass.OVERLOAD
        : status >= 500 ? FailureClass.INFERENCE_STATUS : FailureClass.REJECTED;
    return new EngineFailure(Phase.DECODE, cls, status, status >= 500 ? "engine_error" : "engine_rejected",
        iid, "decode engine " + iid + " reported an error in its stream after " + TokenCounts.describe(tokensSeen) + ": "
            + engineMessage, null);
  }

  /** The descriptor a producer returned cannot be used for decode. */
  public static EngineFailure kvHandoff(String producerIid, String problem) {
    return new EngineFailure(Phase.PREFILL, FailureClass.KV_HANDOFF, 502, "invalid_response", producerIid,
        "unusable KV handoff from prefill engine " + producerIid + ": " + problem, null);
  }
}
