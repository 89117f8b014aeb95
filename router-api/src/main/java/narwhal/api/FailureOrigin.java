package narwhal.api;

/**
 * Where on a leg a failure showed itself. Together with the engine's own status (when it reported
 * one) it is the evidence {@link FailurePolicy} decides from, so no decision has to recover either
 * from a message's text.
 */
public enum FailureOrigin {
  /** The connection was never made (refused, unreachable, not accepted in time): nothing reached the engine. */
  CONNECT("connect"),
  /** The engine answered with a status other than 200, or a 200 head that is not what the leg asked for. */
  HEADERS("headers"),
  /** An event inside a 200 stream: an error object the engine sent, or an event no engine should send. */
  STREAM_EVENT("stream_event"),
  /** The response broke off while it was read: the connection closed, invalid HTTP, a body over the limit. */
  RESPONSE("response"),
  /** A router timer ran out: the prefill timeout, the first token, silence between tokens. */
  TIMEOUT("timeout"),
  /** The producer's KV handoff could not be used (unreadable, invalid, expired). */
  HANDOFF("handoff"),
  /** The router's own code failed while running the leg (a bug, never the engine's doing). */
  ROUTER("router");

  private final String wireName;

  FailureOrigin(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }
}
