package narwhal.sim;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Command line of the simulator on its own ({@code java -cp ... narwhal.sim.SimCli}, as the
 * benchmark starts its engines): {@link #parse} turns flags into {@link SimOptions}; {@link
 * #main} runs one engine until the JVM is stopped. The flags are {@link SimFlags}, shared with
 * {@code narwhal sim}.
 */
@Command(name = "narwhal-sim", sortOptions = false, usageHelpWidth = 110,
    description = "Runs one simulated vLLM (or SGLang) engine until the JVM is stopped.")
public final class SimCli implements Callable<Integer> {

  @Mixin
  private SimFlags flags = new SimFlags();

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this text")
  private boolean help;

  private SimCli() {}

  /** The flags and what they do, as {@code --help} prints them. */
  public static String usage() {
    return new CommandLine(new SimCli()).getUsageMessage();
  }

  /**
   * Parses {@code args} ({@code --flag value} or {@code --flag=value}); throws {@link
   * IllegalArgumentException} naming the bad flag or value.
   */
  public static SimOptions parse(String[] args) {
    return parse(args, System::getenv);
  }

  /** As {@link #parse(String[])}, with vLLM's variables ({@code VLLM_NIXL_SIDE_CHANNEL_*}, ...) read from {@code env}. */
  public static SimOptions parse(String[] args, Function<String, @Nullable String> env) {
    SimCli cli = new SimCli();
    try {
      new CommandLine(cli).parseArgs(args);
    } catch (ParameterException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return cli.flags.toOptions(env);
  }

  @Override
  public Integer call() throws InterruptedException {
    SimOptions options = flags.toOptions();
    SimEngine engine = SimEngine.start(options);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      engine.close();
      stopped.countDown();
    }, "narwhal-sim-shutdown"));
    System.out.println("narwhal-sim listening on " + engine.baseUrl() + " engine-id " + engine.engineId()
        + " model " + options.model());
    stopped.await();
    return 0;
  }

  /** Runs one engine in the foreground until the JVM is interrupted; exit status 2 for bad flags. */
  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new SimCli());
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      if (e instanceof IllegalArgumentException) {
        commandLine.getErr().println("narwhal-sim: " + e.getMessage());
        return 2;
      }
      throw e;
    });
    System.exit(cli.execute(args));
  }
}
