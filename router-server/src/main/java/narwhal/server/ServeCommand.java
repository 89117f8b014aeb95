package narwhal.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Set;
import narwhal.config.FleetConfig;
import narwhal.config.FleetConfigException;
import narwhal.config.FleetFileParser;

/** {@code narwhal serve}: the router over a fleet file. */
final class ServeCommand {

  private ServeCommand() {}

  static int run(String[] args, PrintStream out) {
    Flags flags = Flags.parse(args, Set.of("fleet", "host", "port", "journal"), false);
    String fleetFile = flags.get("fleet");
    if (fleetFile == null) {
      throw new IllegalArgumentException("--fleet FILE is required");
    }
    FleetConfig config;
    try {
      config = FleetFileParser.read(Path.of(fleetFile));
    } catch (FleetConfigException e) {
      out.println("narwhal serve: " + fleetFile + " is not a valid fleet file:");
      e.errors().forEach(line -> out.println("  " + line));
      return 2;
    }
    String journal = flags.get("journal");
    RouterServer server = RouterServer.start(config, flags.get("host", "127.0.0.1"), flags.getInt("port", 8000),
        journal == null ? null : Path.of(journal));
    out.println("narwhal: serving http://" + flags.get("host", "127.0.0.1") + ":" + server.port());
    Narwhal.awaitShutdown(server);
    return 0;
  }
}
