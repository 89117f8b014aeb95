package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.net.InetAddresses;
import java.net.InetAddress;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The SGLang rendezvous a request carries: top-level {@code bootstrap_host}, {@code
 * bootstrap_port} (null means SGLang's default, 8998) and {@code bootstrap_room}, the same on both
 * legs. Types are checked as SGLang's request model does (400 on a wrong type).
 *
 * @param host the prefill engine's host
 * @param port the prefill engine's bootstrap port
 * @param room the rendezvous id, in [0, 2^63-1]
 */
record BootstrapFields(String host, int port, long room) {

  static final int DEFAULT_PORT = 8998;
  private static final String LOOPBACK = "127.0.0.1";

  /** The request's rendezvous, or null when it carries none (a plain or same-engine request). */
  static @Nullable BootstrapFields read(JsonNode body) {
    JsonNode host = body.get("bootstrap_host");
    JsonNode port = body.get("bootstrap_port");
    JsonNode room = body.get("bootstrap_room");
    boolean hasHost = host != null && !host.isNull();
    boolean hasRoom = room != null && !room.isNull();
    if (!hasHost && !hasRoom) {
      return null;
    }
    if (hasHost && (!host.isTextual() || host.textValue().isBlank())) {
      throw new SimHttpException(400, "bootstrap_host must be a non-empty string.", "bootstrap_host");
    }
    if (hasRoom && (!room.isIntegralNumber() || !room.canConvertToLong() || room.longValue() < 0)) {
      throw new SimHttpException(400, "bootstrap_room must be an integer in [0, 2^63-1] (one prompt per "
          + "request: no lists).", "bootstrap_room");
    }
    if (!hasHost || !hasRoom) {
      throw new SimHttpException(400, "bootstrap_host and bootstrap_room must be sent together.",
          hasHost ? "bootstrap_room" : "bootstrap_host");
    }
    int portValue = DEFAULT_PORT;
    if (port != null && !port.isNull()) {
      if (!port.isIntegralNumber() || !port.canConvertToInt() || port.intValue() < 1 || port.intValue() > 65535) {
        throw new SimHttpException(400, "bootstrap_port must be an integer in 1..65535.", "bootstrap_port");
      }
      portValue = port.intValue();
    }
    return new BootstrapFields(host.textValue(), portValue, room.longValue());
  }

  /**
   * True when this rendezvous names the engine bound to {@code boundHost} with bootstrap port
   * {@code ownPort}: then the engine is the prefill leg. Loopback addresses (and {@code localhost})
   * are one host, any spelling of one IP address is that address, and an engine bound to a
   * wildcard address answers to any host.
   */
  boolean names(String boundHost, int ownPort) {
    if (port != ownPort) {
      return false;
    }
    if (boundHost.isEmpty()) {
      return true;
    }
    InetAddress bound = ipLiteral(boundHost);
    if (bound != null && bound.isAnyLocalAddress()) {
      return true;
    }
    return normal(boundHost).equals(normal(host));
  }

  /** A host as one comparable spelling: "127.0.0.1" for loopback, an IP in Guava's canonical form. */
  private static String normal(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    InetAddress ip = ipLiteral(h);
    if (ip == null) {
      return h.equals("localhost") ? LOOPBACK : h;
    }
    return ip.isLoopbackAddress() ? LOOPBACK : InetAddresses.toAddrString(ip);
  }

  /** The address an IP literal spells, bracketed IPv6 included; null for a host name. */
  private static @Nullable InetAddress ipLiteral(String host) {
    if (InetAddresses.isInetAddress(host)) {
      return InetAddresses.forString(host);
    }
    return InetAddresses.isUriInetAddress(host) ? InetAddresses.forUriString(host) : null;
  }
}
