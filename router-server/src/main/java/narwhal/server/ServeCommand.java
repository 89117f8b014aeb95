package narwhal.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Set;
import narwhal.config.FleetConfig;
import narwhal.config.FleetConfigException;

/** {@code narwhal serve}: the router over a fleet file. */
final class ServeCommand {

  private ServeCommand() {}

  static int run(String[] args, PrintStream out) {
    Flags flags = Flags.parse(args, Set.of("fleet", "host", "port", "journal", "preflight", "grpc-port"), false);
    Preflight.Mode preflight = Preflight.Mode.parse(flags.get("preflight", "enforce"));
    String fleetFile = flags.get("fleet");
    if (fleetFile == null) {
      throw new IllegalArgumentException("--fleet FILE is required");
    }
    FleetConfig config;
    try {
      config = FleetFiles.read(Path.of(fleetFile));
    } catch (FleetConfigException e) {
      out.println("narwhal serve: " + fleetFile + " is not a valid fleet file:");
      e.errors().forEach(line -> out.println("  " + line));
      return 2;
    }
    if (!Preflight.gate(config, preflight, out, "narwhal serve")) {
      return CheckCommand.FAILED;
    }
    String journal = flags.get("journal");
    RouterServer server = RouterServer.start(config, flags.get("host", "127.0.0.1"), flags.getInt("port", 8000),
        flags.grpcPort(), journal == null ? null : Path.of(journal));
    out.println("narwhal: serving http://" + flags.get("host", "127.0.0.1") + ":" + server.port());
    if (server.grpcPort() > 0) {
      out.println("narwhal: serving gRPC (narwhal.v1.Router) on " + flags.get("host", "127.0.0.1") + ":"
          + server.grpcPort());
    }
    // On SIGTERM: stop admitting, let in-flight streams finish (serving.graceful_timeout_s), close.
    Narwhal.awaitShutdown(server.gracefulTimeout(), server::shutdownGracefully);
    return 0;
  }
}
