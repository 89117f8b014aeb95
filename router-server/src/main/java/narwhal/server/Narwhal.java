package narwhal.server;

import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import narwhal.server.logs.LogSetup;
import narwhal.server.logs.LoggedLines;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code narwhal} command: {@code serve}, {@code check}, {@code profile}, {@code sim}, {@code
 * demo} and {@code bench}. Exit status 2 for a usage error (an unknown flag, a bad value), with what is wrong and
 * where the flags are listed.
 */
@Command(name = "narwhal", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT,
    versionProvider = NarwhalVersion.class, sortOptions = false, usageHelpWidth = 110,
    description = "A router for disaggregated (prefill/decode) LLM inference.",
    footer = {"", "With real engines, in this order: narwhal check --fleet FILE (every engine and KV transfer), "
        + "narwhal profile --fleet FILE (each engine's latency profile, which serve's preflight asks for under the "
        + "default predictive admission), narwhal serve --fleet FILE. Starting vLLM and SGLang for Narwhal: "
        + "docs/vllm.md."},
    subcommands = {ServeCommand.class, CheckCommand.class, ProfileCommand.class, SimCommand.class, DemoCommand.class,
        BenchCommand.class, KeyCommand.class, HelpCommand.class})
public final class Narwhal implements Runnable {

  static final int USAGE_ERROR = 2;
  /** The router could not start (a port taken): the message says what to fix. */
  static final int STARTUP_FAILED = 1;

  /** Where commands print what they produce (the serving addresses, help, the version). */
  final PrintStream out;
  /**
   * Where commands print diagnostics: fleet-file errors and preflight's report, so a script that
   * reads stdout never mistakes them for output, and they show even when stdout is redirected.
   */
  final PrintStream err;

  @Spec
  private CommandSpec spec;

  private Narwhal(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    String format = System.getenv("NARWHAL_LOG_FORMAT");
    if (format != null && !format.equals("text") && !format.equals("json")) {
      // Checked before anything logs: logback would otherwise drop every line for want of an appender.
      System.err.println("narwhal: NARWHAL_LOG_FORMAT must be text or json, got '" + format + "'");
      System.exit(USAGE_ERROR);
    }
    try {
      LogSetup.apply(System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("narwhal: " + e.getMessage());
      System.exit(USAGE_ERROR);
    }
    // JSON logs: the commands' own stderr lines (preflight reports, configuration errors) become
    // log events too, so stderr holds only JSON objects.
    PrintStream err = "json".equals(format) ? LoggedLines.printStream() : System.err;
    System.exit(run(args, System.out, err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine cli = new CommandLine(new Narwhal(out, err));
    cli.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
    cli.setErr(new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
    cli.setParameterExceptionHandler(Narwhal::usageError);
    cli.setExecutionExceptionHandler(Narwhal::badValue);
    return cli.execute(args);
  }

  /** {@code narwhal} alone: what it can do. */
  @Override
  public void run() {
    spec.commandLine().usage(out);
  }

  private static int usageError(ParameterException e, String[] args) {
    CommandLine cli = e.getCommandLine();
    PrintWriter err = cli.getErr();
    String name = cli.getCommandSpec().qualifiedName();
    boolean unknownCommand = cli.getCommandSpec().parent() == null && e instanceof UnmatchedArgumentException
        && !((UnmatchedArgumentException) e).getUnmatched().isEmpty()
        && !((UnmatchedArgumentException) e).getUnmatched().get(0).startsWith("-");
    if (unknownCommand) {
      err.println(name + ": unknown command '" + ((UnmatchedArgumentException) e).getUnmatched().get(0) + "' ("
          + String.join(", ", cli.getSubcommands().keySet()) + ")");
      err.print(cli.getUsageMessage());
    } else {
      err.println(name + ": " + e.getMessage());
      err.println("'" + name + " --help' lists the flags.");
    }
    err.flush();
    return USAGE_ERROR;
  }

  /** A value the parser accepted but the command could not use (a port out of range, a bad mode). */
  private static int badValue(Exception e, CommandLine cli, ParseResult parsed) throws Exception {
    if (e instanceof StartupFailure) {
      cli.getErr().println(cli.getCommandSpec().qualifiedName() + ": " + e.getMessage());
      cli.getErr().flush();
      return STARTUP_FAILED;
    }
    if (!(e instanceof IllegalArgumentException)) {
      throw e;
    }
    cli.getErr().println(cli.getCommandSpec().qualifiedName() + ": " + e.getMessage());
    cli.getErr().flush();
    return USAGE_ERROR;
  }

}
