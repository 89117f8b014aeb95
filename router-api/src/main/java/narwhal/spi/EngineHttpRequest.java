package narwhal.spi;

import java.util.Map;

/**
 * One HTTP request to an engine, as an engine dialect builds it: the transport only sends it.
 *
 * @param method HTTP method, e.g. {@code POST}
 * @param path path and query relative to the engine's base URL, e.g. {@code /v1/completions}
 * @param headers extra request headers (the transport adds Host, Content-Length, Connection)
 * @param body the request body, possibly empty
 */
public record EngineHttpRequest(String method, String path, Map<String, String> headers, byte[] body) {

  public EngineHttpRequest {
    headers = Map.copyOf(headers);
  }

  public static EngineHttpRequest get(String path) {
    return new EngineHttpRequest("GET", path, Map.of(), new byte[0]);
  }

  /** Header names only: a request printed in a log or a test failure must not show credentials. */
  @Override
  public String toString() {
    return "EngineHttpRequest[" + method + " " + path + ", headers " + headers.keySet() + ", " + body.length
        + " body bytes]";
  }
}
