package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code narwhal check} end to end: simulated engines on real ports, a fleet file, the exit status. */
class CheckCommandTest {

  private static final String CONTRACT = "{\"vllm_version\":\"0.11.0\",\"architecture\":\"LlamaForCausalLM\","
      + "\"kv_heads\":8,\"connector\":\"NixlConnector\",\"transfer_mode\":\"pull\",\"kv_lease_duration_s\":30}";

  @TempDir
  Path dir;

  private final List<SimEngine> engines = new ArrayList<>();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @AfterEach
  void stopEngines() {
    engines.forEach(SimEngine::close);
  }

  private SimEngine sim(SimOptions.Builder options) {
    SimEngine engine = SimEngine.start(options.interTokenMillis(1).prefillBaseMillis(1).build());
    engines.add(engine);
    return engine;
  }

  private SimEngine sim() {
    return sim(SimOptions.builder());
  }

  private static String engine(String iid, String url, String role) {
    return "{\"iid\":\"" + iid + "\",\"url\":\"" + url + "\",\"role\":\"" + role + "\"}";
  }

  private static String attestedEngine(String iid, SimEngine sim, String role) {
    return "{\"iid\":\"" + iid + "\",\"url\":\"" + sim.baseUrl() + "\",\"role\":\"" + role
        + "\",\"attestation_url\":\"" + sim.baseUrl() + "/narwhal/attestation\"}";
  }

  /**
   * A fleet file whose router prices nothing with profiles (open admission, an advisory controller),
   * so its preflight is the engine and transfer checks these tests are about; the profile gate has
   * tests of its own below.
   */
  private Path fleet(String contract, String... engineEntries) throws IOException {
    return fleetWith("\"serving\":{\"admission\":\"open\"},\"controller\":{\"advisory\":true}", contract,
        engineEntries);
  }

  private Path fleetWith(String sections, String contract, String... engineEntries) throws IOException {
    Path file = dir.resolve("fleet.json");
    Files.writeString(file, "{\"schema\":\"narwhal.fleet\",\"schema_version\":1,\"model\":\"narwhal-sim\","
        + "\"slo\":{\"ttft_s\":1,\"tpot_s\":0.1},\"engine_contract\":" + contract + ",\"engines\":["
        + String.join(",", engineEntries) + "]" + (sections.isEmpty() ? "" : "," + sections) + "}");
    return file;
  }

  private static String closedPortUrl() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  private int run(String... args) {
    return Narwhal.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /** Preflight's report and fleet-file errors are diagnostics: they go to stderr. */
  private List<String> lines() {
    return err.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void check_healthyFleet_printsALinePerEngineAndPairAndExitsZero() throws IOException {
    Path file = fleet("null", engine("p0", sim().baseUrl(), "prefill"), engine("d0", sim().baseUrl(), "decode"));

    assertThat(run("check", "--fleet", file.toString())).isZero();

    List<String> lines = lines();
    assertThat(lines).hasSize(5);
    assertThat(lines.get(0)).matches("ok   p0  health \\d+ ms, model narwhal-sim, contract \\(no contract pinned\\), "
        + "generation \\d+ ms");
    assertThat(lines.get(1)).startsWith("ok   d0  health ");
    assertThat(lines.get(2)).matches("ok   p0 -> d0  kv transfer \\d+ ms");
    assertThat(lines.get(3)).isEqualTo("skip profiles  serving.admission is open and the role controller moves no "
        + "engine (advisory, every engine pinned, or no engine beyond the controller's floors)");
    assertThat(lines.get(4)).isEqualTo("preflight passed: 2 engines, 1 kv transfer");
    assertThat(engines.get(1).stats().kvPulls()).as("the decode engine pulled the probe's KV").isEqualTo(1);
  }

  @Test
  void check_predictiveAdmissionWithoutProfiles_failsTheProfileGate_namingWhatToRun() throws IOException {
    Path file = fleetWith("", "null", engine("p0", sim().baseUrl(), "prefill"), engine("d0", sim().baseUrl(), "decode"));

    assertThat(run("check", "--fleet", file.toString())).isEqualTo(1);

    List<String> lines = lines();
    assertThat(lines).hasSize(6);
    assertThat(lines.get(2)).startsWith("ok   p0 -> d0");
    assertThat(lines.get(3)).isEqualTo("FAIL p0  profile: no profiles file at runs/profiles.json (serving.admission is "
        + "predictive): run narwhal profile --fleet FILE to measure the engines");
    assertThat(lines.get(4)).startsWith("FAIL d0  profile: no profiles file");
    assertThat(lines.get(5)).isEqualTo("preflight FAILED: 0 of 2 engines, 0 of 1 kv transfer, 2 of 2 profiles did not "
        + "pass");
  }

  @Test
  void check_everyEngineWithAFreshRow_passesTheProfileGate() throws IOException {
    SimEngine p0 = sim(SimOptions.builder().attest("process_generation", 3));
    SimEngine d0 = sim();
    Path profiles = dir.resolve("profiles.json");
    java.time.Instant now = java.time.Instant.now();
    narwhal.core.profile.ProfilesFile.write(profiles, new narwhal.core.profile.ProfilesDocument(List.of(
        SimProfiles.exact("p0", p0.baseUrl(), p0.options(), "3", now),
        SimProfiles.exact("d0", d0.baseUrl(), d0.options(), null, now))));
    Path file = fleetWith("\"profiles\":{\"path\":\"" + profiles + "\"}", "null", attestedEngine("p0", p0, "prefill"),
        engine("d0", d0.baseUrl(), "decode"));

    assertThat(run("check", "--fleet", file.toString())).as(String.join("\n", lines())).isZero();

    List<String> lines = lines();
    assertThat(lines.get(3)).isEqualTo("ok   p0  profile: own row (generation 3), decode fit 0.0 %, CV 0.0 %");
    assertThat(lines.get(4)).isEqualTo("ok   d0  profile: own row (generation unknown: no attestation_url), decode fit "
        + "0.0 %, CV 0.0 %");
    assertThat(lines.get(5)).isEqualTo("preflight passed: 2 engines, 1 kv transfer, 2 profiles");
  }

  @Test
  void check_unreachableEngine_failsItsLineSkipsItsPairsAndExitsOne() throws IOException {
    String d1 = closedPortUrl();
    Path file = fleet("null", engine("p0", sim().baseUrl(), "prefill"), engine("d0", sim().baseUrl(), "decode"),
        engine("d1", d1, "decode"));

    assertThat(run("check", "--fleet", file.toString())).isEqualTo(1);

    List<String> lines = lines();
    assertThat(out.toString(StandardCharsets.UTF_8)).as("stdout").isEmpty();
    assertThat(lines.get(0)).startsWith("ok   p0  ");
    assertThat(lines.get(1)).startsWith("ok   d0  ");
    assertThat(lines.get(2)).startsWith("FAIL d1  unreachable: GET " + d1 + "/")
        .containsIgnoringCase("connection refused");
    assertThat(lines.get(3)).startsWith("ok   p0 -> d0  kv transfer ");
    assertThat(lines.get(4)).isEqualTo("skip p0 -> d1  not probed: d1 failed its engine checks");
    assertThat(lines.get(5)).startsWith("skip profiles  ");
    assertThat(lines.get(6)).isEqualTo("preflight FAILED: 1 of 3 engines, 1 of 2 kv transfers did not pass");
  }

  @Test
  void check_bothRoleEngines_probeEachDirectionButNeverAnEngineToItself() throws IOException {
    Path file = fleet("null", engine("e0", sim().baseUrl(), "both"), engine("e1", sim().baseUrl(), "both"));

    assertThat(run("check", "--fleet", file.toString())).isZero();

    assertThat(lines()).filteredOn(l -> l.contains("->"))
        .extracting(l -> l.substring(5, 13)).containsExactly("e0 -> e1", "e1 -> e0");
  }

  @Test
  void check_contractMatches_passesWithTheFieldCount() throws IOException {
    Path file = fleet(CONTRACT, attestedEngine("p0", sim(), "prefill"), attestedEngine("d0", sim(), "decode"));

    assertThat(run("check", "--fleet", file.toString())).isZero();

    assertThat(lines().get(0)).contains("contract ok (6 fields)");
  }

  @Test
  void check_contractMismatch_failsNamingTheFieldAndBothValues() throws IOException {
    SimEngine old = sim(SimOptions.builder().attest("vllm_version", "0.10.2"));
    Path file = fleet(CONTRACT, attestedEngine("p0", sim(), "prefill"), attestedEngine("d0", old, "decode"));

    assertThat(run("check", "--fleet", file.toString())).isEqualTo(1);

    assertThat(lines().get(1))
        .isEqualTo("FAIL d0  contract mismatch: vllm_version: pinned \"0.11.0\", engine reports \"0.10.2\"");
    assertThat(lines().get(2)).startsWith("skip p0 -> d0");
  }

  @Test
  void check_contractWithoutAttestationUrl_isAFleetFileError_beforeAnyEngineIsProbed() throws IOException {
    // A configuration error, not a preflight result: serve --preflight=off must refuse it too.
    Path file = fleet(CONTRACT, attestedEngine("p0", sim(), "prefill"), engine("d0", sim().baseUrl(), "decode"));

    assertThat(run("check", "--fleet", file.toString())).isEqualTo(2);

    assertThat(String.join("\n", lines())).contains("$.engines[1] (d0): engine_contract is pinned but this engine has "
        + "no attestation_url").doesNotContain("PASS");
  }

  @Test
  void check_engineServingAnotherModel_fails() throws IOException {
    Path file = fleet("null", engine("p0", sim().baseUrl(), "prefill"),
        engine("d0", sim(SimOptions.builder().model("other")).baseUrl(), "decode"));

    assertThat(run("check", "--fleet", file.toString())).isEqualTo(1);

    assertThat(lines().get(1)).startsWith("FAIL d0  engine serves [other], not the fleet's model 'narwhal-sim'");
  }

  @Test
  void check_unusableHandoff_failsThePairWhileBothEnginesPass() throws IOException {
    Path file = fleet("null", engine("p0", sim(SimOptions.builder().faults("kv-missing-engine-id")).baseUrl(), "prefill"),
        engine("d0", sim().baseUrl(), "decode"));

    assertThat(run("check", "--fleet", file.toString())).isEqualTo(1);

    List<String> lines = lines();
    assertThat(lines.get(0)).startsWith("ok   p0");
    assertThat(lines.get(1)).startsWith("ok   d0");
    assertThat(lines.get(2)).startsWith("FAIL p0 -> d0  kv transfer failed: unusable KV handoff from prefill engine p0");
  }

  @Test
  void check_invalidFleetFile_listsEveryErrorAndExitsTwo() throws IOException {
    Path file = dir.resolve("bad.json");
    Files.writeString(file, "{\"schema\":\"narwhal.fleet\",\"schema_version\":1,\"model\":\"m\","
        + "\"slo\":{\"ttft_s\":1,\"tpot_s\":0.1},\"engines\":[{\"iid\":\"a\",\"url\":\"http://127.0.0.1:1\","
        + "\"role\":\"sideways\"}],\"serving\":{\"max_attempts\":0}}");

    assertThat(run("check", "--fleet", file.toString())).isEqualTo(2);

    assertThat(err.toString(StandardCharsets.UTF_8)).contains("is not a valid fleet file", "$.engines[0].role",
        "$.serving.max_attempts");
  }

  @Test
  void help_listsTheCheckCommand() {
    assertThat(run("help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("check", "Preflight without serving");
    out.reset();
    assertThat(run("check", "--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("--fleet=FILE", "Exit status 0 when all pass");
    out.reset();
    assertThat(run("serve", "--help")).isZero();
    // Line breaks fall where the widest flag puts them: compare the words.
    assertThat(out.toString(StandardCharsets.UTF_8).replaceAll("\\s+", " "))
        .contains("--preflight=MODE", "warn (print the failures", "--tls-cert=FILE", "--tls-client-ca=FILE");
  }

  @Test
  void check_withoutFleet_isAUsageError() {
    assertThat(run("check")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("narwhal check: Missing required option: '--fleet=FILE'");
  }

  @Test
  void serve_fleetFailingPreflight_isRefusedWithExitOne() throws IOException {
    Path file = fleet("null", engine("p0", sim().baseUrl(), "prefill"), engine("d0", closedPortUrl(), "decode"));

    assertThat(run("serve", "--fleet", file.toString(), "--port", "0")).isEqualTo(1);

    assertThat(err.toString(StandardCharsets.UTF_8)).contains("FAIL d0  unreachable",
        "narwhal serve: refusing to serve a fleet that fails preflight", "--preflight=warn");
  }

  @Test
  void serve_badPreflightMode_isAUsageError() {
    assertThat(run("serve", "--fleet", "f.json", "--preflight=sometimes")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--preflight must be enforce, warn or off");
  }
}
