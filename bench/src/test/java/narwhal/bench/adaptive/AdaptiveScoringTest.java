package narwhal.bench.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The adaptive benchmark's scoring: the client contract per request, goodput, traces, flip counting. */
class AdaptiveScoringTest {

  private static final Trace.Arrival TEN_TOKENS = new Trace.Arrival(0, 100, 10, "p");

  @Test
  void met_needsEveryTokenDoneAndBothSlos() {
    assertThat(new ReplayedRequest(TEN_TOKENS, 200, 10, true, 0.5, 0.04, null).met(1.0, 0.05)).isTrue();
    assertThat(new ReplayedRequest(TEN_TOKENS, 200, 9, true, 0.5, 0.04, null).met(1.0, 0.05)).as("short").isFalse();
    assertThat(new ReplayedRequest(TEN_TOKENS, 200, 10, false, 0.5, 0.04, null).met(1.0, 0.05)).as("no [DONE]").isFalse();
    assertThat(new ReplayedRequest(TEN_TOKENS, 200, 10, true, 1.1, 0.04, null).met(1.0, 0.05)).as("slow TTFT").isFalse();
    assertThat(new ReplayedRequest(TEN_TOKENS, 200, 10, true, 0.5, 0.06, null).met(1.0, 0.05)).as("slow TPOT").isFalse();
    assertThat(new ReplayedRequest(TEN_TOKENS, 429, 0, false, Double.NaN, Double.NaN, "x").met(1.0, 0.05)).isFalse();
  }

  @Test
  void score_countsRefusalsFailuresAndMissingRequestsAgainstTheOffered() {
    List<ReplayedRequest> outcomes = List.of(
        new ReplayedRequest(TEN_TOKENS, 200, 10, true, 0.5, 0.04, null),
        new ReplayedRequest(TEN_TOKENS, 429, 0, false, Double.NaN, Double.NaN, "refused"),
        new ReplayedRequest(TEN_TOKENS, 502, 0, false, Double.NaN, Double.NaN, "failed"));

    ArmRun r = ArmRun.score("t", "c", 1, 4, outcomes, 1.0, 0.05, List.of());

    assertThat(r.met()).isEqualTo(1);
    assertThat(r.refused()).isEqualTo(1);
    assertThat(r.failed()).as("one failed, one never reported").isEqualTo(2);
    assertThat(r.attainment()).isEqualTo(0.25);
  }

  @Test
  void phases_groupConsecutiveArrivalsOfAPhase_soARepeatedPhaseIsItsOwnRow() {
    List<ReplayedRequest> outcomes = List.of(
        // Out of arrival order on purpose: grouping follows arrival time.
        new ReplayedRequest(new Trace.Arrival(3, 10, 10, "prompt-heavy"), 429, 0, false, Double.NaN, Double.NaN, "r"),
        new ReplayedRequest(new Trace.Arrival(1, 10, 10, "prompt-heavy"), 200, 10, true, 0.5, 0.04, null),
        new ReplayedRequest(new Trace.Arrival(2, 10, 10, "output-heavy"), 200, 10, true, 0.5, 0.09, null),
        new ReplayedRequest(new Trace.Arrival(4, 10, 10, "prompt-heavy"), 200, 10, true, 0.5, 0.04, null));

    List<PhaseAttainment> phases = PhaseAttainment.of(outcomes, 1.0, 0.05);

    assertThat(phases).containsExactly(
        new PhaseAttainment("1 prompt-heavy", 1, 1, 0),
        new PhaseAttainment("2 output-heavy", 1, 0, 0),
        new PhaseAttainment("3 prompt-heavy", 2, 1, 1));
    assertThat(phases.get(2).attainment()).isEqualTo(0.5);
  }

  @Test
  void controllerDecisions_keepsOnlyTheDecisionRows_andDropsTheJournal(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) throws Exception {
    java.nio.file.Path journal = dir.resolve("j.jsonl");
    java.nio.file.Files.writeString(journal, String.join("\n",
        "{\"kind\":\"meta\",\"schema\":\"narwhal.journal\"}",
        "{\"kind\":\"request\",\"terminal\":\"completed\"}",
        "{\"kind\":\"event\",\"event\":\"controller_decision\",\"outcome\":\"moved\"}",
        "{\"kind\":\"event\",\"event\":\"engine_held\"}",
        "{\"kind\":\"event\",\"event\":\"controller_dec")); // torn last line

    int kept = ControllerDecisions.keep(journal, dir.resolve("d").resolve("x.jsonl"));

    assertThat(kept).isEqualTo(1);
    assertThat(java.nio.file.Files.readAllLines(dir.resolve("d").resolve("x.jsonl")))
        .containsExactly("{\"kind\":\"event\",\"event\":\"controller_decision\",\"outcome\":\"moved\"}");
    assertThat(journal).doesNotExist();
  }

  @Test
  void goodputCell_saysBelowTheLowestRate_whenTheSweepMissedThere() {
    assertThat(AdaptiveReport.goodputCell(List.of(result(6, 0.3), result(8, 0.1)), 0)).isEqualTo("below 6.0");
    assertThat(AdaptiveReport.goodputCell(List.of(result(6, 0.95), result(8, 0.91)), 8)).isEqualTo("≥ 8.00");
    assertThat(AdaptiveReport.goodputCell(List.of(result(6, 0.95), result(8, 0.85)), 6.5)).isEqualTo("6.50");
  }

  @Test
  void goodput_interpolatesWhereAttainmentCrossesNinetyPercent() {
    List<ArmRun> sweep = List.of(result(2, 1.0), result(4, 0.95), result(6, 0.85), result(8, 0.95));

    assertThat(Goodput.of(sweep)).isCloseTo(5.0, within(1e-9));
    assertThat(Goodput.openEnded(sweep)).isTrue();
    assertThat(Goodput.of(List.of(result(2, 0.5)))).isZero();
    assertThat(Goodput.of(List.of(result(2, 0.95), result(4, 0.92)))).isEqualTo(4);
  }

  @Test
  void trace_isSeededAndFollowsItsPhases() {
    List<TracePhase> phases = TraceShape.PHASE_SHIFTING.phases(10, 2000, 100, 200, 10);
    Trace a = Trace.generate(phases, 5, 42);
    Trace b = Trace.generate(phases, 5, 42);

    assertThat(a).isEqualTo(b);
    assertThat(a.seconds()).isCloseTo(30, within(1e-9));
    // About 5/s for 28 s and 10/s in the 2 s burst: 160 expected; Poisson keeps it near.
    assertThat(a.arrivals().size()).isBetween(110, 210);
    assertThat(a.arrivals()).allSatisfy(x -> assertThat(x.atNanos()).isLessThan(30_000_000_000L));
    assertThat(a.arrivals().stream().filter(x -> x.phase().equals("output-heavy")))
        .allSatisfy(x -> assertThat(x.promptTokens()).isBetween(75, 125));
  }

  @Test
  void flips_countPoolChangesAndQuickReversals() {
    List<RoleSampler.Sample> samples = new ArrayList<>();
    int[] prefill = {2, 2, 3, 3, 2, 2, 2, 1};
    for (int i = 0; i < prefill.length; i++) {
      samples.add(new RoleSampler.Sample(i * 2.0, prefill[i], 4 - prefill[i]));
    }
    // 2->3 at 4 s, 3->2 at 8 s (undoes it 4 s later), 2->1 at 14 s (same direction: not a reversal).
    assertThat(AdaptiveReport.flips(samples)).containsExactly(3, 1);
  }

  private static ArmRun result(double rate, double attainment) {
    return new ArmRun("t", "c", rate, 100, (int) Math.round(attainment * 100), 0, 0, 0, 0, 0, List.of(), List.of());
  }
}
