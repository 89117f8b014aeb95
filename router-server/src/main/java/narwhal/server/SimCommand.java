package narwhal.server;

import java.time.Duration;
import java.util.concurrent.Callable;
import narwhal.sim.SimEngine;
import narwhal.sim.SimFlags;
import narwhal.sim.SimOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/** {@code narwhal sim}: one simulated vLLM engine as its own process. */
@Command(name = "sim", sortOptions = false,
    description = "Runs one simulated vLLM (or SGLang) engine: timing, faults and attestation as the flags say.")
final class SimCommand implements Callable<Integer> {

  @ParentCommand
  private Narwhal narwhal;

  @Mixin
  private SimFlags flags;

  private SimCommand() {}

  @Override
  public Integer call() {
    SimOptions options = flags.toOptions();
    SimEngine engine = SimEngine.start(options);
    ShutdownSignal shutdown = ShutdownSignal.install(Duration.ZERO);
    narwhal.out.println("narwhal sim: engine " + engine.engineId() + " serving '" + options.model() + "' on "
        + engine.baseUrl());
    shutdown.awaitThenClose(engine);
    return 0;
  }
}
