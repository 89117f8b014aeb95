package narwhal.core.profile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which profile each engine runs on: own, the fleet's median, or none, and why. */
class ProfileAssignmentTest {

  static ProfileRow row(String iid, String generation, double prefillBase, double decodeBase) {
    return new ProfileRow(iid, "http://" + iid, generation, Instant.parse("2026-12-01T00:00:00Z"),
        new PrefillModel(prefillBase, 1e-4, 0, 32, 4096), 8,
        new DecodeModel(decodeBase, 1e-7, 1e-4, 10_000, 16), 8, 0.01, 0.02);
  }

  private static Map<String, ProfileRow> rows(ProfileRow... rows) {
    return new ProfilesDocument(List.of(rows)).byIid();
  }

  @Test
  void freshRows_areOwn_andAnUnknownGenerationCannotMakeARowStale() {
    Map<String, ProfileStatus> s = ProfileAssignment.assign(List.of("p0", "d0"),
        rows(row("p0", "3", 0.01, 0.005), row("d0", "1", 0.02, 0.006)),
        Map.of("p0", EngineGeneration.known("3"), "d0", EngineGeneration.unknown("no attestation_url")));

    assertThat(s.get("p0")).isEqualTo(new ProfileStatus(ProfileSource.OWN, null, row("p0", "3", 0.01, 0.005).toProfile()));
    assertThat(s.get("d0").source()).isEqualTo(ProfileSource.OWN);
    assertThat(s.get("d0").reason())
        .isEqualTo("generation unknown (no attestation_url): the row cannot be checked against it");
  }

  @Test
  void aStaleOrMissingRow_runsOnTheMedianOfTheFreshRows() {
    Map<String, ProfileStatus> s = ProfileAssignment.assign(List.of("p0", "p1", "p2", "d0", "d1"),
        rows(row("p0", "1", 0.010, 0.004), row("p1", "1", 0.030, 0.008), row("p2", "1", 0.020, 0.100),
            row("d0", "1", 9.0, 9.0), row("gone", "1", 5.0, 5.0)),
        Map.of("p0", EngineGeneration.known("1"), "p1", EngineGeneration.known("1"),
            "p2", EngineGeneration.known("1"), "d0", EngineGeneration.known("2")));

    ProfileStatus stale = s.get("d0");
    assertThat(stale.source()).isEqualTo(ProfileSource.FLEET);
    assertThat(stale.reason()).isEqualTo("stale generation: the row was measured on generation 1, the engine runs "
        + "generation 2; priced with the fleet's profile (the median of 3 fresh rows)");
    // Medians over p0, p1, p2 only: d0's stale row and the row of an engine not in the fleet are left out.
    assertThat(stale.profile().iid()).isEqualTo("d0");
    assertThat(stale.profile().generation()).isNull();
    assertThat(stale.profile().prefill().baseS()).isEqualTo(0.020);
    assertThat(stale.profile().decode().baseS()).isEqualTo(0.008);
    assertThat(s.get("d1").source()).isEqualTo(ProfileSource.FLEET);
    assertThat(s.get("d1").reason()).startsWith("no row in the profiles file; priced with the fleet's profile");
  }

  @Test
  void theMedianOfAnEvenCount_isTheMeanOfTheMiddleTwo() {
    EngineProfile m = FleetProfile.of("x", List.of(row("a", null, 0.01, 0.001).toProfile(),
        row("b", null, 0.04, 0.002).toProfile(), row("c", null, 0.02, 0.004).toProfile(),
        row("d", null, 0.03, 0.008).toProfile()));

    assertThat(m.prefill().baseS()).isCloseTo(0.025, org.assertj.core.api.Assertions.within(1e-15));
    assertThat(m.decode().baseS()).isCloseTo(0.003, org.assertj.core.api.Assertions.within(1e-15));
    assertThat(m.prefill().maxTokens()).isEqualTo(4096);
  }

  @Test
  void aRowWithoutAGeneration_isStale_onceTheEngineReportsOne() {
    Map<String, ProfileStatus> s = ProfileAssignment.assign(List.of("p0"), rows(row("p0", null, 0.01, 0.005)),
        Map.of("p0", EngineGeneration.known("5")));

    assertThat(s.get("p0")).isEqualTo(ProfileStatus.none("stale generation: the row was measured on generation "
        + "(none reported), the engine runs generation 5; no engine of the fleet has a fresh row to stand in"));
  }

  @Test
  void noRowsAtAll_isNoneEverywhere() {
    Map<String, ProfileStatus> s = ProfileAssignment.assign(List.of("p0", "d0"), Map.of(), Map.of());

    assertThat(s.values()).extracting(ProfileStatus::source).containsOnly(ProfileSource.NONE);
    assertThat(s.get("p0").reason())
        .isEqualTo("no row in the profiles file; no engine of the fleet has a fresh row to stand in");
  }

  @Test
  void theBook_pricesWithTheInstalledProfiles_andAnswersStatusForAnyEngine() {
    ProfileBook book = ProfileBook.empty();
    assertThat(book.status("p0")).isEqualTo(ProfileStatus.none("no profiles loaded"));

    book.install(ProfileAssignment.assign(List.of("p0", "d0"), rows(row("p0", "1", 0.01, 0.005)),
        Map.of("d0", EngineGeneration.known("1"))));

    assertThat(book.get("p0").prefill().baseS()).isEqualTo(0.01);
    assertThat(book.get("d0").prefill().baseS()).as("the fleet's profile, of p0 alone").isEqualTo(0.01);
    assertThat(book.status("d0").source()).isEqualTo(ProfileSource.FLEET);
    assertThat(book.all()).containsOnlyKeys("p0", "d0");
  }
}
