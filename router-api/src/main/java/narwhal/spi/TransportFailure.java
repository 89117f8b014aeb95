package narwhal.spi;

import org.jspecify.annotations.Nullable;

/**
 * Why an exchange failed below the HTTP semantics level.
 *
 * <p>Two texts: the message is for operators (journal, logs, preflight) and may name the engine's
 * address and the exception the network stack threw; {@link #clientDetail()} is what a client may
 * read, so it never names an address, a port or a Java class.
 */
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
  private final @Nullable String clientDetail;

  /**
   * @param message for operators: may name the engine's URL and the underlying exception
   * @param clientDetail what happened in words a client may read ("refused the connection",
   *     "failed the TLS handshake: certificate expired"), completing "prefill engine p0 ...";
   *     never an address, a port or a class name; null when the kind says enough
   */
  public TransportFailure(Kind kind, String message, @Nullable String clientDetail, @Nullable Throwable cause) {
    super(message, cause);
    this.kind = kind;
    this.clientDetail = clientDetail;
  }

  public TransportFailure(Kind kind, String message, @Nullable Throwable cause) {
    this(kind, message, null, cause);
  }

  public TransportFailure(Kind kind, String message) {
    this(kind, message, null, null);
  }

  public Kind kind() {
    return kind;
  }

  /**
   * What happened, for the client's error message: a clause completing "prefill engine p0 ..."
   * that names no address, port or class; null when {@link #kind()} says enough.
   */
  public @Nullable String clientDetail() {
    return clientDetail;
  }
}
