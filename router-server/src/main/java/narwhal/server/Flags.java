package narwhal.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** {@code --name value} / {@code --name=value} command-line flags, checked against a known set. */
final class Flags {

  private final Map<String, String> values = new LinkedHashMap<>();
  private final List<String> passThrough = new ArrayList<>();

  private Flags() {}

  /**
   * Parses {@code args}. Flags in {@code known} are kept; with {@code keepUnknown} the rest are
   * collected for another parser, otherwise an unknown flag is an error.
   */
  static Flags parse(String[] args, Set<String> known, boolean keepUnknown) {
    Flags f = new Flags();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + a + "'");
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (!known.contains(name)) {
        if (!keepUnknown) {
          throw new IllegalArgumentException("unknown flag --" + name);
        }
        f.passThrough.add(a);
        if (value == null && i + 1 < args.length && !args[i + 1].startsWith("--")) {
          f.passThrough.add(args[++i]);
        }
        continue;
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("flag --" + name + " needs a value");
        }
        value = args[++i];
      }
      f.values.put(name, value);
    }
    return f;
  }

  String get(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  String get(String name) {
    return values.get(name);
  }

  int getInt(String name, int fallback) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("flag --" + name + " must be an integer, got '" + v + "'");
    }
  }

  /** The default of {@code --grpc-port}: gRPC's customary port. */
  static final int DEFAULT_GRPC_PORT = 50051;

  /**
   * {@code --grpc-port N}: the port to serve gRPC on ({@value #DEFAULT_GRPC_PORT} by default), or
   * null when it is 0, which disables gRPC.
   */
  @Nullable Integer grpcPort() {
    int port = getInt("grpc-port", DEFAULT_GRPC_PORT);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("flag --grpc-port must be a port (0 disables gRPC), got " + port);
    }
    return port == 0 ? null : port;
  }

  String[] passThrough() {
    return passThrough.toArray(String[]::new);
  }
}
