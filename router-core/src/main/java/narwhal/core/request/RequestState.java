package narwhal.core.request;

/**
 * Where one request is in its life. The order is the normal path; a transient failure before
 * output loops back to {@link #PREFILL_PLACEMENT} for a fresh attempt.
 */
enum RequestState {
  ADMITTED,
  /** Seated; its prompt is being counted before admission prices it. */
  SIZING,
  PREFILL_PLACEMENT,
  PREFILL,
  HANDOFF,
  DECODE_PLACEMENT,
  DECODE,
  /** The first token arrived and the response is committed: no retry from here on. */
  RELAY,
  /** Waiting out the backoff before the next attempt. */
  BACKOFF,
  DONE;

  /** The journal's {@code cancelled_phase} for a request the client abandoned in this state. */
  String cancelledPhase() {
    return switch (this) {
      case ADMITTED -> "queue";
      case SIZING -> "admission";
      case RELAY -> "decode";
      default -> name().toLowerCase(java.util.Locale.ROOT);
    };
  }
}
