package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The command line: help and version exit 0; bad input gets a clear message and exit status 2,
 * never a stack trace.
 */
class NarwhalCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Narwhal.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void help_listsTheCommands() {
    for (String help : new String[] {"help", "--help", "-h"}) {
      out.reset();
      assertThat(run(help)).as(help).isZero();
      assertThat(out()).as(help).contains("Usage: narwhal", "serve", "check", "sim", "demo", "bench", "--version");
    }
  }

  @Test
  void noCommand_printsTheCommands() {
    assertThat(run()).isZero();
    assertThat(out()).contains("Usage: narwhal", "serve", "demo");
  }

  @ParameterizedTest
  @CsvSource({
      "serve, --fleet=FILE, --port=N, --grpc-port=N, --journal=PATH, --preflight=MODE, --host=HOST",
      "check, --fleet=FILE, --help, --version, --help, --help, --help",
      "sim, --port=N, --engine-id=ID, --itl-ms=X, --fault=SPEC, --dialect=D, --api-key=KEY",
      "demo, --port=N, --grpc-port=N, --journal=PATH, --host=HOST, --help, --version",
      "bench, bench/run.sh, --help, --version, --help, --help, --help"})
  void everyCommandsHelp_exitsZero_andListsItsFlags(String command, String a, String b, String c, String d, String e,
      String f) {
    assertThat(run(command, "--help")).isZero();
    assertThat(out()).contains("Usage: narwhal " + command, a, b, c, d, e, f);
    assertThat(err()).isEmpty();
  }

  @Test
  void helpCommand_showsACommandsFlags() {
    assertThat(run("help", "serve")).isZero();
    assertThat(out()).contains("Usage: narwhal serve", "--fleet=FILE");
  }

  @Test
  void version_isTheProjectVersion() throws Exception {
    String expected = new String(getClass().getResourceAsStream("/narwhal/server/version.properties").readAllBytes(),
        StandardCharsets.UTF_8);
    assertThat(expected).startsWith("version=").doesNotContain("${");
    assertThat(run("--version")).isZero();
    assertThat(out().trim()).isEqualTo("narwhal " + expected.substring("version=".length()).trim())
        .matches("narwhal \\d+\\.\\d+\\.\\d+.*");
    out.reset();
    assertThat(run("serve", "--version")).isZero();
    assertThat(out().trim()).isEqualTo("narwhal " + NarwhalVersion.version());
  }

  @Test
  void unknownCommand_isRejectedWithUsage() {
    assertThat(run("route")).isEqualTo(2);
    assertThat(err()).contains("narwhal: unknown command 'route' (serve, check, profile, sim, demo, bench, key, help)",
        "Usage: narwhal");
  }

  @Test
  void serve_withoutFleet_saysWhatIsMissing() {
    assertThat(run("serve")).isEqualTo(2);
    assertThat(err()).contains("narwhal serve: Missing required option: '--fleet=FILE'",
        "'narwhal serve --help' lists the flags.");
  }

  @Test
  void serve_unknownFlag_isRejected() {
    assertThat(run("serve", "--fleet", "f.json", "--prot", "1")).isEqualTo(2);
    assertThat(err()).contains("narwhal serve: Unknown options: '--prot', '1'");
  }

  @Test
  void serve_badValues_areRejectedWithTheFlagsName() {
    assertThat(run("serve", "--fleet", "f.json", "--port", "eighty")).isEqualTo(2);
    assertThat(err()).contains("narwhal serve: Invalid value for option '--port': 'eighty' is not an int");
    err.reset();
    assertThat(run("serve", "--fleet", "f.json", "--preflight", "maybe")).isEqualTo(2);
    assertThat(err()).contains("narwhal serve: --preflight must be enforce, warn or off, got 'maybe'");
    err.reset();
    assertThat(run("serve", "--fleet", "f.json", "--grpc-port", "70000")).isEqualTo(2);
    assertThat(err()).contains("narwhal serve: --grpc-port must be a port from 0 to 65535 (0 disables gRPC), got 70000");
  }

  @Test
  void serve_invalidFleetFile_listsEveryErrorWithItsPath(@TempDir Path dir) throws Exception {
    Path fleet = dir.resolve("fleet.json");
    Files.writeString(fleet, "{\"schema\":\"narwhal.fleet\",\"schema_version\":1,\"model\":\"m\","
        + "\"slo\":{\"ttft_s\":1,\"tpot_s\":0.1},\"engines\":[{\"iid\":\"a\",\"url\":\"http://127.0.0.1:1\","
        + "\"role\":\"sideways\"}],\"serving\":{\"max_attempts\":0}}");
    assertThat(run("serve", "--fleet", fleet.toString())).isEqualTo(2);
    assertThat(err()).as("configuration errors are diagnostics: stderr").contains(fleet + " is not a valid fleet file")
        .contains("$.engines[0].role").contains("$.serving.max_attempts");
    assertThat(out()).isEmpty();
  }

  @Test
  void missingFleetFile_isOneLineSayingSo_forEveryCommandThatReadsOne(@TempDir Path dir) {
    Path missing = dir.resolve("fleets.json");
    for (String command : new String[] {"serve", "check", "profile"}) {
      err.reset();
      assertThat(run(command, "--fleet", missing.toString())).as(command).isEqualTo(2);
      assertThat(err()).as(command).isEqualTo("narwhal " + command + ": cannot read fleet file " + missing
          + ": no such file" + System.lineSeparator());
    }
    err.reset();
    assertThat(run("check", "--fleet", dir.toString())).isEqualTo(2);
    assertThat(err()).contains("cannot read fleet file " + dir + ": is a directory, not a fleet file")
        .doesNotContain("Exception");
  }

  @Test
  void helpOfServeCheckAndNarwhal_namesTheProfileGateBeforeAUserMeetsIt() {
    assertThat(run("serve", "--help")).isZero();
    assertThat(out()).contains("profile gate").contains("narwhal").contains("profile --fleet FILE");
    out.reset();
    assertThat(run("check", "--help")).isZero();
    assertThat(out()).contains("run narwhal profile first").contains("stderr");
    out.reset();
    assertThat(run("--help")).isZero();
    assertThat(out()).contains("narwhal check --fleet FILE").contains("narwhal profile --fleet FILE")
        .contains("docs/vllm.md");
  }

  @Test
  void sim_badFlag_isRejected() {
    assertThat(run("sim", "--itl-ms", "fast")).isEqualTo(2);
    assertThat(err()).contains("narwhal sim: Invalid value for option '--itl-ms': 'fast' is not a double");
    err.reset();
    assertThat(run("sim", "--port", "70000")).isEqualTo(2);
    assertThat(err()).contains("narwhal sim: invalid options: port must be 0..65535, got 70000");
  }

  @Test
  void bench_fromThisJar_pointsAtTheHarness() {
    assertThat(run("bench", "sweep", "--levels", "4")).isEqualTo(2);
    assertThat(err()).contains("bin/narwhal bench (or bench/run.sh)");
  }
}
