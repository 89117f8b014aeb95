package narwhal.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** {@code narwhal bench}: help, version, bad flags, and the values the commands get. */
class BenchCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Bench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  /** The command {@code args} select, parsed but not run. */
  private static <T> T parsed(Class<T> type, String... args) {
    var result = Bench.commandLine().parseArgs(args);
    return type.cast(result.subcommand().commandSpec().userObject());
  }

  @Test
  void help_listsTheCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out()).contains("Usage: narwhal bench", "sweep", "profile", "smoke", "ceiling", "cpus", "jmh");
  }

  @ParameterizedTest
  @ValueSource(strings = {"sweep", "profile", "smoke", "ceiling", "cpus"})
  void everyCommandsHelp_exitsZero_andListsItsFlags(String command) {
    assertThat(run(command, "--help")).isZero();
    assertThat(out()).contains("Usage: narwhal bench " + command, "--help", "--version");
    assertThat(err()).isEmpty();
  }

  @Test
  void helpTexts_listTheFlagsEachCommandTakes() {
    run("sweep", "--help");
    assertThat(out()).contains("--levels", "--pin=auto|on|off", "--close-levels", "--proxy-cpu", "--rates", "--arms");
    out.reset();
    run("profile", "--help");
    assertThat(out()).contains("--levels", "--alloc-profile=on|off", "--profiler=async|jfr", "--pin")
        .doesNotContain("--arms", "--close-levels", "--rates");
    out.reset();
    run("ceiling", "--help");
    assertThat(out()).contains("--streams=N", "--hold-s=S", "default 8000");
  }

  @Test
  void version_isTheProjectVersion() {
    assertThat(run("--version")).isZero();
    assertThat(out().trim()).matches("narwhal bench \\d+\\.\\d+\\.\\d+.*");
  }

  @Test
  void unknownFlag_isAUsageError() {
    assertThat(run("sweep", "--levles", "4")).isEqualTo(2);
    assertThat(err()).contains("narwhal bench sweep: Unknown options: '--levles', '4'",
        "'narwhal bench sweep --help' lists the flags.");
    err.reset();
    assertThat(run("profile", "--arms", "direct")).isEqualTo(2);
    assertThat(err()).contains("narwhal bench profile: Unknown options: '--arms', 'direct'");
  }

  @Test
  void badValue_isAUsageError() {
    assertThat(run("ceiling", "--streams", "many")).isEqualTo(2);
    assertThat(err()).contains("Invalid value for option '--streams': 'many' is not an int");
    err.reset();
    assertThat(run("cpus", "--pin", "sometimes")).isEqualTo(2);
    assertThat(err()).contains("narwhal bench cpus:", "sometimes");
  }

  @Test
  void cpus_unpinned_printsNothing() {
    assertThat(run("cpus", "--pin", "off", "--levels", "4", "--alloc-profile", "off")).isZero();
    assertThat(out()).isEqualTo(System.lineSeparator());
  }

  @Test
  void sweepFlags_reachTheCommand_andTheLastOneWins() {
    Bench.Sweep sweep = parsed(Bench.Sweep.class, "sweep", "--repo", "/r", "--levels=1,16", "--itl-ms", "7.5",
        "--close-levels", "", "--router-java-opts", "-Xmx1g -XX:+UseZGC", "--repo", "/other");
    assertThat(sweep.flags.repo).isEqualTo(Path.of("/other"));
    assertThat(sweep.flags.levels).isEqualTo("1,16");
    assertThat(sweep.flags.itlMs).isEqualTo(7.5);
    assertThat(sweep.flags.routerJavaOpts).isEqualTo("-Xmx1g -XX:+UseZGC");
    assertThat(sweep.flags.warmS).isEqualTo(60);
    assertThat(FlagValues.positiveNumbersOrNone("--close-levels", sweep.arms.closeLevels)).isEmpty();
  }

  @Test
  void smoke_isASweepWithSmallDefaults_thatFlagsStillOverride() {
    Bench.Smoke smoke = parsed(Bench.Smoke.class, "smoke", "--measure-s", "3");
    assertThat(smoke.flags.levels).isEqualTo("4");
    assertThat(smoke.flags.warmS).isEqualTo(1);
    assertThat(smoke.flags.outputTokens).isEqualTo(16);
    assertThat(smoke.flags.itlMs).isEqualTo(5);
    assertThat(smoke.flags.measureS).isEqualTo(3);
    assertThat(smoke.arms.closeLevels).isEqualTo("4");
    assertThat(smoke.flags.out.toString()).endsWith("narwhal-bench-smoke");
    assertThat(smoke.flags.prompts).as("not a smoke default: the sweep's").isEqualTo(256);
  }

  @Test
  void numberLists_andSwitches() {
    assertThat(FlagValues.positiveNumbersOrNone("--close-levels", "1,64")).containsExactly(1.0, 64.0);
    assertThatThrownBy(() -> FlagValues.positiveNumbers("--levels", "")).hasMessageContaining("--levels is empty");
    assertThatThrownBy(() -> FlagValues.positiveNumbers("--levels", "1,-4"))
        .hasMessageContaining("--levels must be a comma-separated list of positive numbers, got '1,-4'");
    assertThat(FlagValues.onOff("--alloc-profile", "off")).isFalse();
    assertThatThrownBy(() -> FlagValues.onOff("--alloc-profile", "no")).hasMessageContaining("on or off");
  }
}
