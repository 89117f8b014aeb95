package narwhal.engines.sglang;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import narwhal.config.EngineSpec;
import org.jspecify.annotations.Nullable;

/**
 * What an SGLang engine's {@code dialect_options} say about its KV bootstrap server. The bootstrap
 * host is always the engine URL's host; only the port is configured, because SGLang serves the
 * bootstrap server on its own port ({@code --disaggregation-bootstrap-port}, default 8998), not on
 * the HTTP port.
 */
final class BootstrapOptions {

  /** SGLang's default {@code --disaggregation-bootstrap-port} (and SGLANG_BOOTSTRAP_PORT). */
  static final int DEFAULT_PORT = 8998;
  static final String PORT_KEY = "bootstrap_port";

  private BootstrapOptions() {}

  /** The engine's bootstrap port; throws when {@code dialect_options} gives an unusable one. */
  static int port(EngineSpec engine) {
    String problem = portProblem(engine.dialectOptions());
    if (problem != null) {
      throw new IllegalArgumentException("engine " + engine.iid() + ": " + problem);
    }
    Object port = engine.dialectOptions().get(PORT_KEY);
    return port == null ? DEFAULT_PORT : ((Number) port).intValue();
  }

  /** The bootstrap host SGLang expects: the engine URL's host, IPv6 literals without brackets. */
  static String host(EngineSpec engine) {
    String host = engine.url().getHost();
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /**
   * Every problem with {@code engine}'s options for SGLang, each saying what to fix (the caller
   * names the engine).
   */
  static List<String> problems(EngineSpec engine) {
    List<String> problems = new ArrayList<>();
    String port = portProblem(engine.dialectOptions());
    if (port != null) {
      problems.add(port);
    }
    for (String key : engine.dialectOptions().keySet()) {
      if (!key.equals(PORT_KEY)) {
        problems.add("dialect_options." + key + " is not an sglang option: remove it (sglang reads only "
            + PORT_KEY + ")");
      }
    }
    return problems;
  }

  private static @Nullable String portProblem(Map<String, @Nullable Object> options) {
    if (!options.containsKey(PORT_KEY)) {
      return null;
    }
    Object port = options.get(PORT_KEY);
    boolean integral = port instanceof Integer || port instanceof Long;
    if (!integral || ((Number) port).longValue() < 1 || ((Number) port).longValue() > 65535) {
      return "dialect_options." + PORT_KEY + " must be the engine's KV bootstrap port, an integer 1..65535 (SGLang's "
          + "--disaggregation-bootstrap-port; leave it out for the default " + DEFAULT_PORT + "), got "
          + (port instanceof String ? "\"" + port + "\"" : String.valueOf(port));
    }
    return null;
  }
}
