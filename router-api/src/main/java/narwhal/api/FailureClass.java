package narwhal.api;

import java.util.Locale;

/**
 * What kind of engine fault ended a leg. The breaker keeps one consecutive-failure streak per class
 * and engine, and each class has its own remedy (eject, verify with a health probe, or hold out
 * of placement until an inference probe passes).
 */
public enum FailureClass {
  /** The engine could not be reached or dropped the connection. */
  CONNECTION,
  /** A transport-level timeout: connect, prefill, or an engine 504. */
  TIMEOUT,
  /** Back-pressure: HTTP 408/429/503, or a first-token deadline while the engine sent metadata. */
  OVERLOAD,
  /** A broken decode stream: silent first token, mid-stream silence, bad termination. */
  STREAM,
  /**
   * Any other engine 5xx, including an error object inside a 200 stream, and a 401/403 refusing
   * the router's credentials (the engine answers, but wrongly for the router).
   */
  INFERENCE_STATUS,
  /** The producer's KV handoff descriptor was missing, unreadable or invalid. */
  KV_HANDOFF,
  /** The engine refused the request itself (a 4xx other than 408/429): the engine is healthy. */
  REJECTED,
  /** The engine's answer exceeded the router's response size limit. */
  RESPONSE_LIMIT;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
