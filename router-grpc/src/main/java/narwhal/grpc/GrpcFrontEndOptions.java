package narwhal.grpc;

import java.time.Duration;

/**
 * How the gRPC front-end serves.
 *
 * @param host the address to bind
 * @param port the port to bind; 0 picks an ephemeral one
 * @param maxRequestBytes {@code serving.max_request_bytes}: a larger request message is refused
 *     (INVALID_ARGUMENT, as HTTP's 413)
 * @param maxResponseBytes {@code serving.max_response_bytes}: the largest {@code Complete} answer
 * @param readinessPoll how often health re-reads {@link narwhal.api.CompletionService#ready()}
 */
public record GrpcFrontEndOptions(
    String host, int port, long maxRequestBytes, long maxResponseBytes, Duration readinessPoll) {

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
  }

  /** Polling readiness once a second. */
  public GrpcFrontEndOptions(String host, int port, long maxRequestBytes, long maxResponseBytes) {
    this(host, port, maxRequestBytes, maxResponseBytes, Duration.ofSeconds(1));
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
