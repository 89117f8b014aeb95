package narwhal.http;

import io.netty.handler.codec.http.HttpMethod;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * The routes this front-end serves, each with its one method; a GET route answers HEAD as well
 * (HTTP requires it: the same status and headers, no body).
 */
enum Endpoint {
  COMPLETIONS("/v1/completions", HttpMethod.POST, Route.ROUTE_COMPLETIONS),
  CHAT_COMPLETIONS("/v1/chat/completions", HttpMethod.POST, Route.ROUTE_CHAT_COMPLETIONS),
  MODELS("/v1/models", HttpMethod.GET, null),
  /** {@code /v1/models/{id}}: matched by prefix, the rest of the path is the id. */
  MODEL("/v1/models/", HttpMethod.GET, null),
  HEALTH("/health", HttpMethod.GET, null),
  READY("/ready", HttpMethod.GET, null),
  METRICS("/metrics", HttpMethod.GET, null),
  STATE("/narwhal/state", HttpMethod.GET, null);

  final String path;
  final HttpMethod method;
  /** The completion route, or null for the informational endpoints. */
  final @Nullable Route route;

  Endpoint(String path, HttpMethod method, @Nullable Route route) {
    this.path = path;
    this.method = method;
    this.route = route;
  }

  static @Nullable Endpoint forPath(String path) {
    for (Endpoint endpoint : values()) {
      if (endpoint.path.equals(path)) {
        return endpoint == MODEL ? null : endpoint; // "/v1/models/" names no model
      }
    }
    return path.startsWith(MODEL.path) ? MODEL : null;
  }

  /** Whether {@code method} may be used on this route: its own, or HEAD on a GET route. */
  boolean allows(HttpMethod method) {
    return this.method.equals(method) || (this.method.equals(HttpMethod.GET) && method.equals(HttpMethod.HEAD));
  }

  /**
   * The operator's routes: the metrics scrape and the state document, which say how the fleet is
   * doing; behind an operator key when {@code tenants.operator_keys} names any. Health and
   * readiness stay open for load balancers and orchestrators.
   */
  boolean operatorOnly() {
    return this == METRICS || this == STATE;
  }

  /** The {@code Allow} header's value. */
  String allowed() {
    return this.method.equals(HttpMethod.GET) ? "GET, HEAD" : this.method.name();
  }
}
