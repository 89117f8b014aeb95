package narwhal.engines.client;

import narwhal.engines.spi.TransportFailure;

/** Builds {@link EngineFailure}s from what went wrong on the wire, with the spec's mapping. */
public final class EngineFailures {

  private EngineFailures() {}

  /** An engine answered a leg with a non-200 status. */
  public static EngineFailure fromStatus(Phase phase, String iid, int status, String engineMessage) {
    String what = phase.wireName() + " engine " + iid + " answered HTTP " + status
        + (engineMessage.isEmpty() ? "" : ": " + engineMessage);
    if (status == 408) {
      return new EngineFailure(phase, FailureClass.OVERLOAD, 504, "engine_overloaded", iid, what, true, null);
    }
    if (status == 429 || status == 503) {
      // 503 is back-pressure (engine busy or starting), not a broken engine.
      return new EngineFailure(phase, FailureClass.OVERLOAD, 502, "engine_overloaded", iid, what, true, null);
    }
    if (status == 504) {
      return new EngineFailure(phase, FailureClass.TIMEOUT, 504, "engine_timeout", iid, what, true, null);
    }
    if (status >= 500) {
      return new EngineFailure(phase, FailureClass.INFERENCE_STATUS, 502, "engine_error", iid, what, true, null);
    }
    if (status >= 400) {
      // The engine judged the request itself (e.g. prompt longer than the context): relay it.
      return new EngineFailure(phase, FailureClass.REJECTED, status, "engine_rejected", iid, what, false, null);
    }
    return new EngineFailure(phase, FailureClass.INFERENCE_STATUS, 502, "invalid_response", iid, what, false, null);
  }

  /** A transport failure (connect, reset, oversize, protocol) on a leg. */
  public static EngineFailure fromTransport(Phase phase, String iid, TransportFailure f, int tokensSeen) {
    String leg = phase.wireName() + " engine " + iid;
    switch (f.kind()) {
      case CONNECT_FAILED:
        return new EngineFailure(phase, FailureClass.CONNECTION, 502, "engine_unreachable", iid,
            leg + " is unreachable: " + f.getMessage(), true, f);
      case CONNECT_TIMEOUT:
        return new EngineFailure(phase, FailureClass.TIMEOUT, 504, "engine_timeout", iid,
            leg + " did not accept a connection in time: " + f.getMessage(), true, f);
      case CONNECTION_CLOSED:
        return new EngineFailure(phase, FailureClass.CONNECTION, 502, "engine_connection", iid,
            leg + " closed the connection before the response was complete"
                + (phase == Phase.DECODE ? " (after " + TokenCounts.describe(tokensSeen) + ")" : ""), true, f);
      case BODY_TOO_LARGE:
        return new EngineFailure(phase, FailureClass.RESPONSE_LIMIT, 502, "response_limit", iid,
            leg + " sent a response over the router's limit: " + f.getMessage(), false, f);
      case PROTOCOL_ERROR:
      default:
        return new EngineFailure(phase, FailureClass.STREAM, 502, "invalid_response", iid,
            leg + " sent invalid HTTP: " + f.getMessage(), false, f);
    }
  }

  /** An error object inside a 200 stream: its integer code if 400-599, else 500. */
  public static EngineFailure fromStreamError(String iid, int code, String engineMessage, int tokensSeen) {
    int status = code >= 400 && code <= 599 ? code : 500;
    boolean transientFault = status == 408 || status == 429 || status >= 500;
    FailureClass cls = status == 408 || status == 429 ? FailureClass.OVERLOAD
        : status >= 500 ? FailureClass.INFERENCE_STATUS : FailureClass.REJECTED;
    return new EngineFailure(Phase.DECODE, cls, status, status >= 500 ? "engine_error" : "engine_rejected",
        iid, "decode engine " + iid + " reported an error in its stream after " + TokenCounts.describe(tokensSeen) + ": "
            + engineMessage, transientFault, null);
  }

  /** The descriptor a producer returned cannot be used for decode. */
  public static EngineFailure kvHandoff(String producerIid, String problem) {
    return new EngineFailure(Phase.PREFILL, FailureClass.KV_HANDOFF, 502, "invalid_response", producerIid,
        "unusable KV handoff from prefill engine " + producerIid + ": " + problem, false, null);
  }
}
