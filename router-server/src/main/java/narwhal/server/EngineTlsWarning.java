package narwhal.server;

import java.util.List;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * The loud side of {@code engine.tls.verify_hostname: false}: a development opt-out that lets an
 * engine show any certificate its CA signed, so it is logged at WARN when the router starts and on
 * every preflight, naming the engines it weakens.
 */
final class EngineTlsWarning {

  private EngineTlsWarning() {}

  /** The warning for {@code config}, or null when host names are verified. */
  static @Nullable String of(FleetConfig config) {
    if (config.engine().tls().verifyHostname()) {
      return null;
    }
    List<String> https = config.engines().stream()
        .filter(EngineTlsWarning::isTls)
        .map(e -> e.iid() + " (" + e.url() + ")")
        .toList();
    return "engine.tls.verify_hostname is false: the certificates of "
        + (https.isEmpty() ? "https:// engines (none in this fleet)" : "engines " + String.join(", ", https))
        + " are not checked against their host names, so anyone holding a certificate of the same CA can stand in "
        + "for them; a development setting, never for production";
  }

  /** Logs the warning, if there is one. */
  static void log(FleetConfig config, Logger log) {
    String warning = of(config);
    if (warning != null) {
      log.warn(warning);
    }
  }

  /** True for an engine reached over TLS. */
  static boolean isTls(EngineSpec engine) {
    return "https".equalsIgnoreCase(engine.url().getScheme());
  }
}
