package narwhal.core.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import narwhal.config.AdmissionMode;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineGeneration;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileRow;
import narwhal.core.profile.ProfilesDocument;
import org.junit.jupiter.api.Test;

/** Preflight's profile gate: when it applies, and what it asks of each engine's row. */
class ProfileGateTest {

  private static final FleetConfig FLEET = FleetConfig.of("m", List.of(
      EngineSpec.of("p0", "http://10.0.0.1:8000", EngineRole.PREFILL),
      EngineSpec.of("d0", "http://10.0.0.2:8000", EngineRole.DECODE),
      EngineSpec.of("d1", "http://10.0.0.3:8000", EngineRole.DECODE)));

  private static ProfileRow row(String iid, String generation, double fitMape, double cvMape) {
    return new ProfileRow(iid, "http://x", generation, Instant.parse("2026-12-01T00:00:00Z"),
        new PrefillModel(0.01, 1e-4, 0, 32, 4096), 8, new DecodeModel(0.005, 1e-7, 1e-4, 1000, 8), 8, fitMape, cvMape);
  }

  private static FleetConfig open(FleetConfig c) {
    return c.withServing(c.serving().withAdmission(AdmissionMode.OPEN));
  }

  @Test
  void use_predictiveAdmission_orAControllerThatCanMoveAnEngine() {
    FleetConfig open = open(FLEET);
    FleetConfig pinned = open.withEngines(open.engines().stream().map(e -> e.withPin(true)).toList());
    FleetConfig advisory = open.withController(open.controller().withAdvisory(true));
    FleetConfig floors = open.withEngines(open.engines().subList(0, 2));

    assertThat(ProfileGate.use(FLEET)).isEqualTo("serving.admission is predictive");
    assertThat(ProfileGate.use(open))
        .isEqualTo("the role controller may move engines (controller.advisory is false, 3 of 3 engines not pinned)");
    assertThat(ProfileGate.use(pinned)).isNull();
    assertThat(ProfileGate.use(advisory)).isNull();
    assertThat(ProfileGate.use(floors)).as("1 prefill + 1 decode are the floors: nothing to move").isNull();
    assertThat(ProfileGate.judge(pinned, null, List.of(), Map.of()).skippedBecause())
        .startsWith("serving.admission is open and the role controller moves no engine");
  }

  @Test
  void everyEngineWithAFreshRowWithinTheLimits_passes() {
    ProfilesDocument doc = new ProfilesDocument(List.of(row("p0", "4", 0.01, 0.02), row("d0", "4", 0.05, 0.13),
        row("d1", "9", 0.02, 0.03)));

    ProfileGate.Report r = ProfileGate.judge(FLEET, doc, List.of(), Map.of("p0", EngineGeneration.known("4"),
        "d0", EngineGeneration.known("4"), "d1", EngineGeneration.unknown("no attestation_url")));

    assertThat(r.passed()).isTrue();
    assertThat(r.engines()).extracting(CheckResult::detail).containsExactly(
        "profile: own row (generation 4), decode fit 1.0 %, CV 2.0 %",
        "profile: own row (generation 4), decode fit 5.0 %, CV 13.0 %",
        "profile: own row (generation unknown: no attestation_url), decode fit 2.0 %, CV 3.0 %");
  }

  @Test
  void aMissingOrStaleRow_orAFitBeyondItsLimits_failsNamingTheEngineAndWhy() {
    ProfilesDocument doc = new ProfilesDocument(List.of(row("p0", "4", 0.051, 0.02), row("d0", "1", 0.01, 0.02)));

    ProfileGate.Report r = ProfileGate.judge(FLEET, doc, List.of(),
        Map.of("p0", EngineGeneration.known("4"), "d0", EngineGeneration.known("2")));

    assertThat(r.passed()).isFalse();
    assertThat(r.engines()).allSatisfy(c -> assertThat(c.failedIid()).isEqualTo(c.subject()));
    assertThat(r.engines()).extracting(CheckResult::detail).containsExactly(
        "profile: the decode fit misses its limits (fit MAPE 5.1 % > profiles.max_decode_fit_mape 5.0 %): re-run "
            + "narwhal profile --fleet FILE --engine p0 on an idle engine",
        "profile: stale generation: the row was measured on generation 1, the engine runs generation 2: re-run "
            + "narwhal profile --fleet FILE --engine d0",
        "profile: no row in runs/profiles.json: re-run narwhal profile --fleet FILE --engine d1");
  }

  @Test
  void noFile_orAnInvalidFile_failsEveryEngineWithWhatToDo() {
    ProfileGate.Report none = ProfileGate.judge(FLEET, null, List.of(), Map.of());
    ProfileGate.Report invalid = ProfileGate.judge(FLEET, null, List.of("$.schema_version: must be 1, got 2"), Map.of());

    assertThat(none.engines()).hasSize(3).allSatisfy(c -> assertThat(c.detail()).isEqualTo("profile: no profiles "
        + "file at runs/profiles.json (serving.admission is predictive): run narwhal profile --fleet FILE to measure "
        + "the engines"));
    assertThat(invalid.engines()).hasSize(3).allSatisfy(c -> assertThat(c.detail()).isEqualTo(
        "profile: profiles file runs/profiles.json is invalid ($.schema_version: must be 1, got 2)"));
  }

  @Test
  void engineThatCannotBeProfiled_isLeftOutOfTheGate_theOthersAreStillJudged() {
    ProfilesDocument doc = new ProfilesDocument(List.of(row("d0", "4", 0.01, 0.02)));
    Map<String, String> sglang = Map.of("p0", "sglang hands KV over concurrently");

    ProfileGate.Report mixed = ProfileGate.judge(FLEET, doc, List.of(), Map.of("d0", EngineGeneration.known("4")),
        sglang);
    ProfileGate.Report allExempt = ProfileGate.judge(FLEET, null, List.of(), Map.of(),
        Map.of("p0", "sglang hands KV over concurrently", "d0", "sglang hands KV over concurrently",
            "d1", "sglang hands KV over concurrently"));

    assertThat(mixed.engines()).extracting(CheckResult::subject).containsExactly("d0", "d1");
    assertThat(mixed.passed()).as("d1 has no row").isFalse();
    assertThat(mixed.exempt()).singleElement().satisfies(c -> {
      assertThat(c.subject()).isEqualTo("p0");
      assertThat(c.detail()).isEqualTo("profile: not asked for: sglang hands KV over concurrently; its requests are "
          + "admitted and placed unpriced");
    });
    assertThat(allExempt.passed()).isTrue();
    assertThat(allExempt.skippedBecause()).isEqualTo("no engine of this fleet can be profiled (sglang hands KV over "
        + "concurrently): admission and placement run unpriced");
  }
}
