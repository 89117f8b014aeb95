package narwhal.http;

import io.netty.handler.codec.http.HttpMethod;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/** The routes this front-end serves, each with its one method. */
enum Endpoint {
  COMPLETIONS("/v1/completions", HttpMethod.POST, Route.ROUTE_COMPLETIONS),
  CHAT_COMPLETIONS("/v1/chat/completions", HttpMethod.POST, Route.ROUTE_CHAT_COMPLETIONS),
  MODELS("/v1/models", HttpMethod.GET, null),
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
        return endpoint;
      }
    }
    return null;
  }
}
