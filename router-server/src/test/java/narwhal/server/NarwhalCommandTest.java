package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line's answers to bad input: a clear message and exit status 2, never a stack trace. */
class NarwhalCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Narwhal.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void help_listsTheCommands() {
    assertThat(run("help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("serve --fleet FILE", "sim ", "demo ");
  }

  @Test
  void unknownCommand_isRejectedWithUsage() {
    assertThat(run("route")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command 'route'", "usage: narwhal");
  }

  @Test
  void serve_withoutFleet_saysWhatIsMissing() {
    assertThat(run("serve")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--fleet FILE is required");
  }

  @Test
  void serve_unknownFlag_isRejected() {
    assertThat(run("serve", "--fleet", "f.json", "--prot", "1")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown flag --prot");
  }

  @Test
  void serve_invalidFleetFile_listsEveryErrorWithItsPath(@TempDir Path dir) throws Exception {
    Path fleet = dir.resolve("fleet.json");
    Files.writeString(fleet, "{\"schema\":\"narwhal.fleet\",\"schema_version\":1,\"model\":\"m\","
        + "\"slo\":{\"ttft_s\":1,\"tpot_s\":0.1},\"engines\":[{\"iid\":\"a\",\"url\":\"http://127.0.0.1:1\","
        + "\"role\":\"sideways\"}],\"serving\":{\"max_attempts\":0}}");
    assertThat(run("serve", "--fleet", fleet.toString())).isEqualTo(2);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("$.engines[0].role").contains("$.serving.max_attempts");
  }

  @Test
  void sim_badFlag_isRejected() {
    assertThat(run("sim", "--itl-ms", "fast")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("narwhal sim:");
  }
}
