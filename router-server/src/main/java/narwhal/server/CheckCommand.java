package narwhal.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Set;
import narwhal.config.FleetConfig;
import narwhal.config.FleetConfigException;

/**
 * {@code narwhal check --fleet FILE}: preflight without serving. Exit status 0 when everything
 * passes, 1 when any engine or transfer fails, 2 for a usage or fleet-file error.
 */
final class CheckCommand {

  static final int FAILED = 1;
  static final int CONFIG_ERROR = 2;

  private CheckCommand() {}

  static int run(String[] args, PrintStream out) {
    Flags flags = Flags.parse(args, Set.of("fleet"), false);
    String fleetFile = flags.get("fleet");
    if (fleetFile == null) {
      throw new IllegalArgumentException("--fleet FILE is required");
    }
    FleetConfig config;
    try {
      config = FleetFiles.read(Path.of(fleetFile));
    } catch (FleetConfigException e) {
      out.println("narwhal check: " + fleetFile + " is not a valid fleet file:");
      e.errors().forEach(line -> out.println("  " + line));
      return CONFIG_ERROR;
    }
    PreflightReport report = Preflight.run(config);
    report.print(out);
    return report.passed() ? 0 : FAILED;
  }
}
