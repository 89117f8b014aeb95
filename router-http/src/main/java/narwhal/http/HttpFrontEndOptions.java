package narwhal.http;

import java.util.Objects;

/**
 * Where the front-end listens and how much it buffers.
 *
 * @param host the address to bind, e.g. {@code 127.0.0.1} or {@code 0.0.0.0}
 * @param port the port to bind; 0 picks a free one (see {@link HttpFrontEnd#port()})
 * @param maxRequestBytes the largest request body accepted; larger ones get 413
 * @param maxResponseBytes the largest non-streaming response body assembled; larger ones get 502
 */
public record HttpFrontEndOptions(
    String host, int port, long maxRequestBytes, long maxResponseBytes) {

  /** {@code serving.max_request_bytes} default: 4 MiB. */
  public static final long DEFAULT_MAX_REQUEST_BYTES = 4L << 20;

  /** {@code serving.max_response_bytes} default: 16 MiB. */
  public static final long DEFAULT_MAX_RESPONSE_BYTES = 16L << 20;

  public HttpFrontEndOptions {
    Objects.requireNonNull(host, "host");
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
  }

  /** Options with the default size limits. */
  public static HttpFrontEndOptions of(String host, int port) {
    return new HttpFrontEndOptions(
        host, port, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_RESPONSE_BYTES);
  }
}
