package narwhal.bench;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import narwhal.bench.cpu.CpuList;
import narwhal.bench.cpu.Pinning;
import narwhal.bench.fleet.NginxProcess;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code narwhal bench}: {@code sweep} (the arms, interleaved per level), {@code profile}
 * (the router's CPU profile at one level), {@code smoke} (a sweep in seconds, for CI), {@code
 * ceiling} (concurrent slow streams through a heap-capped router) and {@code wakeup} (what a
 * round trip to a process idle for a given gap costs on this machine). {@code bench/run.sh}
 * builds and runs it, and {@code bin/narwhal bench} hands over to {@code bench/run.sh}.
 */
@Command(name = "narwhal bench", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT,
    versionProvider = BenchVersion.class, usageHelpWidth = 110,
    description = "The benchmark harness: the direct, narwhal and nginx arms against the same simulated engines.",
    subcommands = {Bench.Sweep.class, Bench.Profile.class, Bench.Smoke.class, CeilingCommand.class, ReplicasCommand.class, narwhal.bench.adaptive.AdaptiveCommand.class, narwhal.bench.cache.CacheCommand.class, Bench.Cpus.class,
        narwhal.bench.wakeup.WakeupCommand.class,
        HelpCommand.class},
    footer = {"", "bench/run.sh (which bin/narwhal bench runs) also has 'jmh [JMH args]': the JMH microbenchmarks."})
public final class Bench {

  static final int USAGE_ERROR = 2;

  private Bench() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs {@code args} (a sweep with the defaults when empty, as before there were subcommands).
   * Public for the commands' tests in other packages.
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine cli = commandLine();
    cli.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
    cli.setErr(new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
    cli.setParameterExceptionHandler(Bench::usageError);
    cli.setExecutionExceptionHandler(Bench::badValue);
    return cli.execute(args.length == 0 ? new String[] {"sweep"} : args);
  }

  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Bench());
    // bench/run.sh puts its own flags (--repo, --command, ...) before the caller's: the last one wins.
    cli.setOverwrittenOptionsAllowed(true);
    return cli;
  }

  private static int usageError(ParameterException e, String[] args) {
    CommandLine cli = e.getCommandLine();
    String name = cli.getCommandSpec().qualifiedName();
    cli.getErr().println(name + ": " + e.getMessage());
    cli.getErr().println("'" + name + " --help' lists the " + (cli.getSubcommands().isEmpty() ? "flags." : "commands."));
    cli.getErr().flush();
    return USAGE_ERROR;
  }

  /** A value the parser accepted but the command could not use (an empty list, a mode that does not exist). */
  private static int badValue(Exception e, CommandLine cli, ParseResult parsed) throws Exception {
    if (!(e instanceof IllegalArgumentException)) {
      throw e;
    }
    cli.getErr().println(cli.getCommandSpec().qualifiedName() + ": " + e.getMessage());
    cli.getErr().flush();
    return USAGE_ERROR;
  }

  @Command(name = "sweep", sortOptions = false, description = {
      "Direct, narwhal and nginx arms, interleaved per level, against the same simulated engines: chunked engine "
          + "streams, then close-delimited ones (--close-levels). Pinned unless --pin off."})
  static final class Sweep implements Callable<Integer> {
    @Mixin SweepFlags flags;
    @Mixin ArmFlags arms;

    @Override
    public Integer call() throws IOException {
      return new SweepCommand(flags, arms, null, Env.detect()).run();
    }
  }

  @Command(name = "profile", sortOptions = false, description = {
      "The narwhal arm at one level (--levels 256) after the usual warm-up, with a CPU profile of the router over "
          + "the measurement window only: async-profiler (event=itimer, 1 ms) attached with jcmd as the window "
          + "opens, stopped as it closes -> profile.html, profile.collapsed and the top frames by self time in "
          + "report.md; then a second window for allocations (alloc.html, alloc.collapsed)."})
  static final class Profile implements Callable<Integer> {
    @Mixin SweepFlags flags;
    @Mixin ProfilerFlags profiler;

    @Override
    public Integer call() throws IOException {
      return new SweepCommand(flags, new ArmFlags(), profiler, Env.detect()).run();
    }
  }

  /** A sweep with {@link SmokeDefaults}: every arm, both stream styles, one small level, seconds each. */
  @Command(name = "smoke", sortOptions = false, defaultValueProvider = SmokeDefaults.class,
      description = "Every arm (nginx-both too) at one small level for a few seconds (CI): a sweep with smaller "
          + "defaults.")
  static final class Smoke implements Callable<Integer> {
    @Mixin SweepFlags flags;
    @Mixin ArmFlags arms;

    @Override
    public Integer call() throws IOException {
      return new SweepCommand(flags, arms, null, Env.detect()).run();
    }
  }

  static final class SmokeDefaults implements IDefaultValueProvider {
    static final Map<String, String> VALUES = Map.of("--levels", "4", "--warm-s", "1", "--warm-streams", "4",
        "--warmup-s", "1", "--measure-s", "2", "--output-tokens", "16", "--itl-ms", "5", "--close-levels", "4",
        "--close-warm-s", "1", "--arms", "direct,narwhal,nginx,nginx-both");

    @Override
    public String defaultValue(ArgSpec arg) {
      if (!(arg instanceof OptionSpec option)) {
        return null;
      }
      if (option.longestName().equals("--out")) {
        String tmp = System.getenv("TMPDIR");
        return Path.of(tmp == null || tmp.isEmpty() ? "/tmp" : tmp, "narwhal-bench-smoke").toString();
      }
      if (option.longestName().equals("--command")) {
        return "bench/run.sh smoke";
      }
      return VALUES.get(option.longestName());
    }
  }

  /**
   * The CPUs the harness itself runs on under these flags (empty when unpinned), so {@code
   * bench/run.sh} can start the harness's JVM on them. Takes every flag sweep and profile take.
   */
  @Command(name = "cpus", description = "[sweep flags]: prints the CPUs the harness itself runs on when pinned "
      + "(bench/run.sh uses it)")
  static final class Cpus implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin SweepFlags flags;
    @Mixin ArmFlags arms;
    @Mixin ProfilerFlags profiler;

    @Override
    public Integer call() {
      Pinning p = flags.pinning();
      spec.commandLine().getOut().println(p.pinned() ? CpuList.format(p.others()) : "");
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  /** The java binary and classpath child JVMs use, and facts about this process. */
  record Env(String java, String classpath) {

    static Env detect() {
      String java = ProcessHandle.current().info().command().orElse("java");
      return new Env(java, System.getProperty("java.class.path"));
    }

    String nginxVersion(String nginx) {
      return NginxProcess.version(nginx);
    }

    int openFilesLimit() {
      try {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
          if (line.startsWith("Max open files")) {
            String[] parts = line.substring("Max open files".length()).trim().split("\\s+");
            return Integer.parseInt(parts[0]);
          }
        }
      } catch (IOException | RuntimeException e) {
        // Not Linux, or an unexpected layout: report unknown.
      }
      return -1;
    }
  }
}
