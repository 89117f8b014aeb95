package narwhal.grpc;

import io.netty.handler.ssl.SslContext;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How the gRPC front-end serves.
 *
 * @param host the address to bind
 * @param port the port to bind; 0 picks an ephemeral one
 * @param maxRequestBytes {@code serving.max_request_bytes}: a larger request message is refused
 *     (INVALID_ARGUMENT, as HTTP's 413)
 * @param maxResponseBytes {@code serving.max_response_bytes}: the largest {@code Complete} answer
 * @param readinessPoll how often health re-reads {@link narwhal.api.CompletionService#ready()}
 * @param handshakeTimeout {@code serving.header_timeout_s}: how long a new connection may take to
 *     send the HTTP/2 preface and settings before it is closed; zero keeps grpc-java's 120 s
 * @param idleTimeout {@code serving.idle_timeout_s}: a connection with no call in progress for
 *     this long is closed (GOAWAY); zero turns it off
 * @param tls the server TLS context (ALPN {@code h2}, see {@link GrpcFrontEnd#tlsContext}), or
 *     null to serve plaintext HTTP/2
 */
public record GrpcFrontEndOptions(
    String host, int port, long maxRequestBytes, long maxResponseBytes, Duration readinessPoll,
    Duration handshakeTimeout, Duration idleTimeout, @Nullable SslContext tls) {

  public GrpcFrontEndOptions {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    if (maxRequestBytes <= 0 || maxResponseBytes <= 0) {
      throw new IllegalArgumentException("size limits must be positive");
    }
    if (readinessPoll.isNegative() || readinessPoll.isZero()) {
      throw new IllegalArgumentException("readinessPoll must be positive");
    }
    if (handshakeTimeout.isNegative() || idleTimeout.isNegative()) {
      throw new IllegalArgumentException("timeouts must be >= 0 (0 = off)");
    }
    if (tls != null && !tls.isServer()) {
      throw new IllegalArgumentException("tls must be a server context");
    }
  }

  /** Plaintext options. */
  public GrpcFrontEndOptions(String host, int port, long maxRequestBytes, long maxResponseBytes,
      Duration readinessPoll, Duration handshakeTimeout, Duration idleTimeout) {
    this(host, port, maxRequestBytes, maxResponseBytes, readinessPoll, handshakeTimeout, idleTimeout, null);
  }

  /** With the default connection timeouts: 20 s for the handshake, 90 s idle (as HTTP's). */
  public GrpcFrontEndOptions(
      String host, int port, long maxRequestBytes, long maxResponseBytes, Duration readinessPoll) {
    this(host, port, maxRequestBytes, maxResponseBytes, readinessPoll, Duration.ofSeconds(20),
        Duration.ofSeconds(90));
  }

  /** Polling readiness once a second. */
  public GrpcFrontEndOptions(String host, int port, long maxRequestBytes, long maxResponseBytes) {
    this(host, port, maxRequestBytes, maxResponseBytes, Duration.ofSeconds(1));
  }

  /** These options with other connection timeouts (zero: grpc-java's default / off). */
  public GrpcFrontEndOptions withConnectionTimeouts(Duration handshakeTimeout, Duration idleTimeout) {
    return new GrpcFrontEndOptions(host, port, maxRequestBytes, maxResponseBytes, readinessPoll,
        handshakeTimeout, idleTimeout, tls);
  }

  /** These options serving TLS with {@code context} ({@link GrpcFrontEnd#tlsContext}), or plaintext with null. */
  public GrpcFrontEndOptions withTls(@Nullable SslContext context) {
    return new GrpcFrontEndOptions(host, port, maxRequestBytes, maxResponseBytes, readinessPoll,
        handshakeTimeout, idleTimeout, context);
  }

  /**
   * The transport's own message limit: above the router's, so that a request a little over it
   * gets the router's INVALID_ARGUMENT naming the setting rather than the transport's
   * RESOURCE_EXHAUSTED; still bounded, so no client makes the router hold more than twice it.
   */
  int transportMessageLimit() {
    return (int) Math.min(Integer.MAX_VALUE, 2 * maxRequestBytes);
  }
}
