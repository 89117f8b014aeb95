package narwhal.http;

import io.netty.handler.ssl.SslContext;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where the front-end listens, how much it buffers, and how long and how many client connections
 * it keeps open.
 *
 * @param host the address to bind, e.g. {@code 127.0.0.1} or {@code 0.0.0.0}
 * @param port the port to bind; 0 picks a free one (see {@link HttpFrontEnd#port()})
 * @param maxRequestBytes the largest request body accepted; larger ones get 413
 * @param maxResponseBytes the largest non-streaming response body assembled; larger ones get 502
 * @param headerTimeout the longest a request head may take to arrive, in total: from accept (or
 *     the first byte of a later request on a kept-alive connection) to its blank line; zero turns
 *     it off
 * @param idleTimeout how long a kept-alive connection may sit between requests; zero turns it off
 * @param maxConnections the most client connections open at once; more are answered 503 and closed
 * @param tls the server TLS context (ALPN {@code http/1.1}) when the front-end serves HTTPS, or null
 *     for plain HTTP
 */
public record HttpFrontEndOptions(
    String host,
    int port,
    long maxRequestBytes,
    long maxResponseBytes,
    Duration headerTimeout,
    Duration idleTimeout,
    int maxConnections,
    @Nullable SslContext tls) {

  /** {@code serving.max_request_bytes} default: 4 MiB. */
  public static final long DEFAULT_MAX_REQUEST_BYTES = 4L << 20;

  /** {@code serving.max_response_bytes} default: 16 MiB. */
  public static final long DEFAULT_MAX_RESPONSE_BYTES = 16L << 20;

  /** {@code serving.header_timeout_s} default: 20 s, as Apache's mod_reqtimeout starts with. */
  public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(20);

  /**
   * {@code serving.idle_timeout_s} default: 90 s, longer than the 60 s idle timeout load balancers
   * commonly use, so that the balancer (not the router) closes an idle pooled connection and never
   * sends a request on one the router is closing.
   */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(90);

  /** {@code serving.max_client_connections} default: well under common file-descriptor limits. */
  public static final int DEFAULT_MAX_CONNECTIONS = 4096;

  public HttpFrontEndOptions {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(headerTimeout, "headerTimeout");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
    }
    if (maxRequestBytes <= 0 || maxRequestBytes > Integer.MAX_VALUE - 8) {
      // Bodies are held in one array; that bounds the limit.
      throw new IllegalArgumentException(
          "maxRequestBytes must be in [1, 2^31-9], got " + maxRequestBytes);
    }
    if (maxResponseBytes <= 0) {
      throw new IllegalArgumentException(
          "maxResponseBytes must be positive, got " + maxResponseBytes);
    }
    if (headerTimeout.isNegative() || idleTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "timeouts must be >= 0 (0 = off), got header " + headerTimeout + ", idle " + idleTimeout);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1, got " + maxConnections);
    }
    if (tls != null && !tls.isServer()) {
      throw new IllegalArgumentException("tls must be a server context");
    }
  }

  /** Plain-HTTP options. */
  public HttpFrontEndOptions(String host, int port, long maxRequestBytes, long maxResponseBytes,
      Duration headerTimeout, Duration idleTimeout, int maxConnections) {
    this(host, port, maxRequestBytes, maxResponseBytes, headerTimeout, idleTimeout, maxConnections, null);
  }

  /** Options with the given size limits and the default connection limits. */
  public HttpFrontEndOptions(String host, int port, long maxRequestBytes, long maxResponseBytes) {
    this(host, port, maxRequestBytes, maxResponseBytes, DEFAULT_HEADER_TIMEOUT,
        DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS);
  }

  /** Options with the default size and connection limits. */
  public static HttpFrontEndOptions of(String host, int port) {
    return new HttpFrontEndOptions(
        host, port, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_RESPONSE_BYTES);
  }

  /** These options with other connection limits (zero durations turn a timeout off). */
  public HttpFrontEndOptions withConnectionLimits(
      Duration headerTimeout, Duration idleTimeout, int maxConnections) {
    return new HttpFrontEndOptions(host, port, maxRequestBytes, maxResponseBytes, headerTimeout,
        idleTimeout, maxConnections, tls);
  }

  /** These options serving HTTPS with {@code context} (see {@code narwhal.netty.tls.ServerTls}), or HTTP with null. */
  public HttpFrontEndOptions withTls(@Nullable SslContext context) {
    return new HttpFrontEndOptions(host, port, maxRequestBytes, maxResponseBytes, headerTimeout,
        idleTimeout, maxConnections, context);
  }
}
