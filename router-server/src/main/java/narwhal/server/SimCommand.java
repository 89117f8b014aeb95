package narwhal.server;

import java.io.PrintStream;
import narwhal.sim.SimCli;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;

/** {@code narwhal sim}: one simulated vLLM engine as its own process. */
final class SimCommand {

  private SimCommand() {}

  static int run(String[] args, PrintStream out) {
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        out.print(SimCli.usage());
        return 0;
      }
    }
    SimOptions options = SimCli.parse(args);
    SimEngine engine = SimEngine.start(options);
    out.println("narwhal sim: engine " + engine.engineId() + " serving '" + options.model() + "' on "
        + engine.baseUrl());
    Narwhal.awaitShutdown(engine);
    return 0;
  }
}
