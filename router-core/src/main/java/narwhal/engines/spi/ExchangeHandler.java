package narwhal.engines.spi;

/**
 * Receives one exchange's response. All calls arrive on the exchange's loop, in this order:
 * {@code onHead}, then either SSE events ({@code onEvent}, for {@code text/event-stream}
 * responses) or one {@code onBody}, then {@code onEnd}; or {@code onFailure} at any point.
 */
public interface ExchangeHandler {

  /** The response status line and content type arrived. */
  void onHead(int status, String contentType);

  /** One SSE event's data (multi-line data joined with '\n'); comments and blank events are skipped. */
  void onEvent(String data);

  /** The whole body of a non-SSE response, once, before {@link #onEnd}. */
  void onBody(String body);

  /** The response completed cleanly. */
  void onEnd();

  /** The exchange failed; nothing follows. */
  void onFailure(TransportFailure failure);
}
