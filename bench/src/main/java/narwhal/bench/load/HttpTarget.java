package narwhal.bench.load;

import java.net.URI;

/** Where a request goes: host and port of an HTTP/1.1 server. */
public record HttpTarget(String host, int port) {

  /** From {@code http://host:port}. */
  public static HttpTarget of(String url) {
    URI uri = URI.create(url);
    return new HttpTarget(uri.getHost(), uri.getPort());
  }

  public String hostHeader() {
    return host + ":" + port;
  }

  public String url() {
    return "http://" + hostHeader();
  }
}
