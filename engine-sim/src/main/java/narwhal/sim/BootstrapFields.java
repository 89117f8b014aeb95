package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
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
   * {@code ownPort}: then the engine is the prefill leg. Loopback spellings are one host, and an
   * engine bound to a wildcard address answers to any host.
   */
  boolean names(String boundHost, int ownPort) {
    if (port != ownPort) {
      return false;
    }
    String bound = normal(boundHost);
    return bound.isEmpty() || bound.equals("0.0.0.0") || bound.equals("::") || bound.equals(normal(host));
  }

  private static String normal(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.equals("localhost") || h.equals("::1") || h.startsWith("127.")) {
      return "127.0.0.1";
    }
    return h;
  }
}
