package narwhal.engine.http;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;

/**
 * Where an engine listens, derived from its base URI.
 *
 * @param host host name or IP literal, without IPv6 brackets
 * @param port TCP port
 * @param hostHeader the value of the {@code Host} request header
 * @param basePath the base URI's path without a trailing slash (usually empty)
 * @param tls true for an {@code https://} engine
 */
record EngineAddress(String host, int port, String hostHeader, String basePath, boolean tls) {

  /** The scheme and host:port; connections are pooled by it (TLS and plain never share one). */
  String authority() {
    return (tls ? "https://" : "http://") + hostHeader;
  }

  static EngineAddress of(URI base) {
    boolean tls = "https".equalsIgnoreCase(base.getScheme());
    if (!tls && !"http".equalsIgnoreCase(base.getScheme())) {
      throw new IllegalArgumentException("engine base URI must be http://host:port or https://host:port: " + base);
    }
    String rawHost = base.getHost();
    if (rawHost == null || rawHost.isEmpty()) {
      throw new IllegalArgumentException("engine base URI has no host: " + base);
    }
    String host = rawHost.startsWith("[") ? rawHost.substring(1, rawHost.length() - 1) : rawHost;
    int port = base.getPort() >= 0 ? base.getPort() : tls ? 443 : 80;
    String path = base.getRawPath() == null ? "" : base.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return new EngineAddress(host, port, rawHost + ":" + port, path, tls);
  }

  /**
   * The socket address to connect to: already resolved for an IP literal (so no resolver runs),
   * unresolved for a name (the bootstrap's resolver looks it up off the event loop).
   */
  InetSocketAddress socketAddress() {
    byte[] literal = NetUtil.createByteArrayFromIpAddressString(host);
    if (literal != null) {
      try {
        return new InetSocketAddress(InetAddress.getByAddress(host, literal), port);
      } catch (UnknownHostException e) {
        throw new IllegalStateException("IP literal rejected: " + host, e);
      }
    }
    return InetSocketAddress.createUnresolved(host, port);
  }

  /** The request target: the base path followed by the request's own path. */
  String target(String requestPath) {
    if (requestPath.isEmpty()) {
      return basePath.isEmpty() ? "/" : basePath;
    }
    return basePath + (requestPath.startsWith("/") ? requestPath : "/" + requestPath);
  }

  @Override
  public String toString() {
    return (tls ? "https://" : "") + hostHeader + basePath;
  }
}
