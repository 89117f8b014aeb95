package narwhal.spi;

/** Why an exchange failed below the HTTP semantics level. */
public final class TransportFailure extends Exception {

  private static final long serialVersionUID = 1L;

  /** What went wrong on the wire. */
  public enum Kind {
    /** The connection could not be opened (refused, unreachable, DNS). */
    CONNECT_FAILED,
    /** Opening the connection took longer than the connect timeout. */
    CONNECT_TIMEOUT,
    /** The connection closed or reset before the response was complete. */
    CONNECTION_CLOSED,
    /** The response body (or one SSE event) exceeded {@link ExchangeOptions#maxBodyBytes()}. */
    BODY_TOO_LARGE,
    /** The response was not valid HTTP. */
    PROTOCOL_ERROR
  }

  private final Kind kind;

  public TransportFailure(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public TransportFailure(Kind kind, String message) {
    this(kind, message, null);
  }

  public Kind kind() {
    return kind;
  }
}
