package narwhal.spi;

/**
 * Receives one exchange's response. All calls arrive on the exchange's loop, in this order:
 * {@code onHead}, then either SSE events ({@code onEvent}, plus {@code onChunkWithoutEvent} for
 * chunks that completed none; for {@code text/event-stream} responses) or one {@code onBody}, then
 * {@code onEnd}; or {@code onFailure} at any point.
 */
public interface ExchangeHandler {

  /** The response status line and content type arrived. */
  void onHead(int status, String contentType);

  /** One SSE event's data (multi-line data joined with '\n'); comments and blank events are skipped. */
  void onEvent(String data);

  /**
   * A chunk of an event stream arrived that completed no event: an SSE comment such as {@code
   * : keep-alive}, blank lines, or part of a longer event. Chunks that complete events are reported
   * by {@link #onEvent} alone, so this costs nothing on the per-token path. It tells a reader that
   * the engine is still sending even though no event came of it. Ignored by default; a handler
   * that wraps another must forward it, or the wrapped decode leg's silence bound fires while
   * keep-alives arrive.
   */
  default void onChunkWithoutEvent() {}

  /** The whole body of a non-SSE response, once, before {@link #onEnd}. */
  void onBody(String body);

  /** The response completed cleanly. */
  void onEnd();

  /** The exchange failed; nothing follows. */
  void onFailure(TransportFailure failure);
}
