package narwhal.server;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Unmatched;

/**
 * {@code narwhal bench}, as this jar sees it: the harness lives in the bench module (which
 * depends on this one, so it cannot be here), and {@code bin/narwhal bench} hands over to {@code
 * bench/run.sh} before this jar is started. Listed so {@code narwhal --help} shows every command.
 */
@Command(name = "bench",
    description = {"Benchmarks (sweep, profile, ceiling, smoke, cpus): bin/narwhal bench hands over to bench/run.sh, "
        + "which builds the bench harness when needed; 'bin/narwhal bench --help' lists its commands."})
final class BenchCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  @Unmatched
  private List<String> args;

  private BenchCommand() {}

  @Override
  public Integer call() {
    spec.commandLine().getErr().println("narwhal bench: the benchmark harness is not in this jar; run "
        + "bin/narwhal bench (or bench/run.sh) from a source checkout");
    return Narwhal.USAGE_ERROR;
  }
}
