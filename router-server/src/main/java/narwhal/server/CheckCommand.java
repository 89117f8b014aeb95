package narwhal.server;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import narwhal.config.FleetConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code narwhal check --fleet FILE}: preflight without serving. Exit status 0 when everything
 * passes, 1 when any engine or transfer fails, 2 for a usage or fleet-file error.
 */
@Command(name = "check",
    description = {"Preflight without serving: reaches every engine, checks model and engine_contract, probes every "
        + "KV transfer, and checks each engine's latency profile when the router prices work with them "
        + "(serving.admission predictive, the default: run narwhal profile first). Prints its report on stderr. "
        + "Exit status 0 when all pass, 1 when any fails, 2 for a usage or fleet-file error."})
final class CheckCommand implements Callable<Integer> {

  static final int FAILED = 1;
  static final int CONFIG_ERROR = 2;

  @ParentCommand
  private Narwhal narwhal;

  @Option(names = "--fleet", required = true, paramLabel = "FILE", description = "the fleet file")
  private Path fleet;

  private CheckCommand() {}

  @Override
  public Integer call() {
    FleetConfig config = FleetFiles.readOrReport("narwhal check", fleet, narwhal.err, c -> c);
    if (config == null) {
      return CONFIG_ERROR;
    }
    PreflightReport report = Preflight.run(config);
    report.print(narwhal.err);
    return report.passed() ? 0 : FAILED;
  }
}
