package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import narwhal.core.profile.ProfileRow;
import narwhal.core.profile.ProfilesDocument;
import narwhal.core.profile.ProfilesFile;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code narwhal profile} against simulated engines on real ports, whose true timing is known. */
class ProfileCommandTest {

  @TempDir
  Path dir;

  private final List<SimEngine> engines = new ArrayList<>();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @AfterEach
  void stopEngines() {
    engines.forEach(SimEngine::close);
  }

  private SimEngine sim(String generation) {
    SimEngine engine = SimEngine.start(SimOptions.builder().prefillBaseMillis(20).prefillMillisPerToken(0.05)
        .interTokenMillis(10).loadFactor(0.05).attest("process_generation", generation).build());
    engines.add(engine);
    return engine;
  }

  private Path fleet(String... entries) throws IOException {
    Path file = dir.resolve("fleet.json");
    Files.writeString(file, "{\"schema\":\"narwhal.fleet\",\"schema_version\":1,\"model\":\"narwhal-sim\","
        + "\"slo\":{\"ttft_s\":1,\"tpot_s\":0.1},\"profiles\":{\"path\":\"" + dir.resolve("profiles.json")
        + "\"},\"engines\":[" + String.join(",", entries) + "]}");
    return file;
  }

  private static String engine(String iid, SimEngine sim, String role) {
    return "{\"iid\":\"" + iid + "\",\"url\":\"" + sim.baseUrl() + "\",\"role\":\"" + role
        + "\",\"attestation_url\":\"" + sim.baseUrl() + "\"}";
  }

  private int run(String... args) {
    return Narwhal.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void profile_twoSimulatedEngines_recoversTheirTiming_andWritesTheFile() throws Exception {
    Path fleet = fleet(engine("p0", sim("1"), "prefill"), engine("d0", sim("1"), "decode"));

    int status = run("profile", "--fleet", fleet.toString(), "--max-prompt-tokens", "2048", "--max-seqs", "8",
        "--decode-tokens", "32");

    System.out.println(out.toString(StandardCharsets.UTF_8));
    System.out.println(err.toString(StandardCharsets.UTF_8));
    assertThat(status).isZero();
    ProfilesDocument doc = ProfilesFile.read(dir.resolve("profiles.json"));
    assertThat(doc.rows()).extracting(ProfileRow::iid).containsExactly("p0", "d0");
    for (ProfileRow r : doc.rows()) {
      assertThat(r.generation()).isEqualTo("1");
      assertThat(r.prefill().perTokenS()).isCloseTo(5e-5, within(1e-5));
      assertThat(r.decode().baseS()).isCloseTo(0.010, within(0.002));
      assertThat(r.decode().perSequenceS()).isCloseTo(0.0005, within(0.0002));
    }
  }
}
