package narwhal.core.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.ThresholdsConfig;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.Reservation;
import org.junit.jupiter.api.Test;

/** Every guard a load-driven move passes, and which engine moves (Alg. 3), on a manual clock. */
class RoleControllerGuardsTest {

  /** 1P2D under prefill pressure with steady arrivals: absent a guard, d0 moves at tick 4. */
  private static ControllerFixture prefillPressure(ControllerFixture f) {
    return f.start().prefillLoad("p0", 3).arrivals(2, 100);
  }

  @Test
  void cooldown_holdsASecondPrefillToDecodeMove_untilItHasPassed() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(3, 1), c -> c).start();
    f.decodeLoad("d0", 2.0);
    assertThat(f.ticksUntil("p0", EngineRole.DECODE, 5)).isEqualTo(3);
    // Decode is still pressed (mean of 2.0 and 0.0): the next P→D is confirmed at tick 6 but
    // waits for the 10 s cooldown that started at tick 3.
    assertThat(f.ticksUntil("p1", EngineRole.DECODE, 20)).isEqualTo(10);
    assertThat(f.decisions("blocked")).singleElement()
        .satisfies(r -> assertThat(r).containsEntry("blocked_by", "cooldown").containsEntry("to", "decode")
            .containsEntry("candidate", "p1"));
  }

  @Test
  void panic_bypassesTheCooldown_whenDecodeLoadReachesPanicRatioTimesExpand() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(3, 1),
        c -> c.withThresholds(ControllerFixture.thresholds(t -> withPanic(t, 1.5)))).start();
    f.decodeLoad("d0", 4.0);
    assertThat(f.ticksUntil("p0", EngineRole.DECODE, 5)).isEqualTo(3);
    // Pool load (4.0 + 0.0) / 2 = 2.0 >= 1.5 × expand: no wait for the cooldown.
    assertThat(f.ticksUntil("p1", EngineRole.DECODE, 20)).isEqualTo(3);
    assertThat(f.decisions("blocked")).isEmpty();
  }

  @Test
  void dwell_keepsAMovedEngineInItsNewRole_andPinsNeverMove() {
    ControllerFixture f = pinnedDecodeFleet(5);
    assertThat(f.ticksUntil("p0", EngineRole.DECODE, 5)).isEqualTo(3);
    pressPrefill(f);
    // Confirmed at tick 5; p0 arrived in decode at tick 3 and dwells until tick 8; d0 is pinned.
    assertThat(f.ticksUntil("p0", EngineRole.PREFILL, 10)).isEqualTo(5);
    assertThat(f.decisions("blocked")).singleElement()
        .satisfies(r -> assertThat(r).containsEntry("blocked_by", "dwell").containsEntry("to", "prefill")
            .containsEntry("candidate", "p0"));
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
  }

  @Test
  void aMoveBackSoonAfter_countsAsAReversal() {
    ControllerFixture f = pinnedDecodeFleet(0);
    assertThat(f.ticksUntil("p0", EngineRole.DECODE, 5)).isEqualTo(3);
    pressPrefill(f);
    assertThat(f.ticksUntil("p0", EngineRole.PREFILL, 10)).isEqualTo(2);

    assertThat(f.counter("narwhal_flip_reversals_total")).isEqualTo(1);
    assertThat(f.decisions("moved")).extracting(r -> r.get("reversal")).containsExactly(false, true);
    assertThat(f.fleet.roleHistory().moves()).extracting(m -> m.reversal()).containsExactly(false, true);
    assertThat(f.engine("d0").role()).as("pinned").isEqualTo(EngineRole.DECODE);
  }

  @Test
  void pinnedEngines_only_blockAsPin() {
    List<EngineSpec> specs = new ArrayList<>(ControllerFixture.fleet(1, 0));
    specs.add(EngineSpec.of("d0", "http://10.0.1.1:8000", EngineRole.DECODE).withPin(true));
    specs.add(EngineSpec.of("d1", "http://10.0.1.2:8000", EngineRole.DECODE).withPin(true));
    ControllerFixture f = prefillPressure(new ControllerFixture(specs, c -> c));
    f.ticks(8);
    assertThat(f.decisions("blocked")).extracting(r -> r.get("blocked_by")).containsExactly("evidence", "pin");
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.engine("d1").role()).isEqualTo(EngineRole.DECODE);
  }

  @Test
  void floor_keepsMinDecodeEngines() {
    ControllerFixture f = prefillPressure(new ControllerFixture(ControllerFixture.fleet(1, 2),
        c -> c.toBuilder().minDecode(2).build()));
    f.ticks(8);
    assertThat(f.decisions("blocked")).singleElement().satisfies(r -> assertThat(r).containsEntry("blocked_by", "floor")
        .containsEntry("candidate", "d0").containsEntry("iid", null));
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
  }

  @Test
  void floorZero_stillNeverEmptiesAPool_theScoreOfAnEmptyPoolIsSaturated() {
    ControllerFixture f = prefillPressure(new ControllerFixture(ControllerFixture.fleet(1, 1),
        c -> c.toBuilder().minDecode(0).build()));
    f.ticks(8);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.decisions()).isEmpty();
  }

  @Test
  void donorResidentGuard_waitsUntilADonorHoldsNoMoreThanTheGuard_andZeroTurnsItOff() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2),
        c -> c.withThresholds(ControllerFixture.thresholds(t -> withResidentGuard(t, 1))));
    f.engine("d0").reserveDecode(100);
    f.engine("d0").reserveDecode(100);
    f.engine("d1").reserveDecode(100);
    Reservation leaving = f.engine("d1").reserveDecode(100);
    prefillPressure(f).ticks(6);
    assertThat(f.decisions("blocked")).extracting(r -> r.get("blocked_by")).containsExactly("evidence", "donor_resident");
    assertThat(f.engine("d1").role()).isEqualTo(EngineRole.DECODE);

    leaving.release();
    assertThat(f.ticksUntil("d1", EngineRole.PREFILL, 3)).isEqualTo(1);

    ControllerFixture off = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c);
    for (int i = 0; i < 5; i++) {
      off.engine("d0").reserveDecode(100);
      off.engine("d1").reserveDecode(100);
    }
    prefillPressure(off);
    assertThat(off.ticksUntil("d0", EngineRole.PREFILL, 6)).isEqualTo(4);
  }

  @Test
  void donorLoad_aDecodeEngineAtOrAboveShrink_isNotGivenToPrefill() {
    ControllerFixture f = prefillPressure(new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c));
    f.decodeLoad("d0", 0.6).decodeLoad("d1", 0.6).ticks(8);
    assertThat(f.decisions("blocked")).extracting(r -> r.get("blocked_by")).containsExactly("evidence", "donor_load");
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
  }

  @Test
  void evidence_withoutArrivals_thinWindowsNeverAllowDecodeToPrefill() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c).start();
    f.prefillLoad("p0", 3).ticks(12);
    assertThat(f.decisions("blocked")).singleElement().satisfies(r -> assertThat(r).containsEntry("blocked_by", "evidence"));
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.gauge("narwhal_demand_evidence_sufficient").intValue()).isZero();
    assertThat(f.gauge("narwhal_demand_evidence_span_seconds").doubleValue()).isEqualTo(4.0);
  }

  @Test
  void risingDecodeDemand_holdsDecodeToPrefill_untilItSettles() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c).start();
    f.prefillLoad("p0", 3).arrivals(2, 100).ticks(2);
    f.arrivals(2, 300);
    // Window 2 (ticks 3-4) wants 3x window 1's output tokens per second; window 3 (ticks 5-6) as many as 2.
    assertThat(f.ticksUntil("d0", EngineRole.PREFILL, 10)).isEqualTo(4);
    assertThat(f.decisions("blocked")).extracting(r -> r.get("blocked_by")).containsExactly("evidence", "demand_rising");
  }

  @Test
  void profileCoverage_anUnprofiledEngineInAPool_blocksLoadMoves() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c);
    f.profiles.replaceAll(List.of(ControllerFixture.profile("p0"), ControllerFixture.profile("d0")));
    prefillPressure(f).ticks(8);
    assertThat(f.decisions("blocked")).singleElement()
        .satisfies(r -> assertThat(r).containsEntry("blocked_by", "profile_coverage"));
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
  }

  @Test
  void enginesOutOfPlacement_neverMove_andDoNotCountTowardAPool() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 3), c -> c);
    f.engine("d0").setCondition(EngineCondition.EJECTED, "connection");
    prefillPressure(f);
    assertThat(f.ticksUntil("d1", EngineRole.PREFILL, 6)).isEqualTo(4);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);

    ControllerFixture held = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c);
    held.engine("d1").setCondition(EngineCondition.HELD, "stream");
    prefillPressure(held).ticks(8);
    // With d1 held the decode pool is d0 alone: giving it away would leave decode empty.
    assertThat(held.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(held.engine("d1").role()).isEqualTo(EngineRole.DECODE);
    assertThat(held.decisions()).isEmpty();
  }

  @Test
  void advisory_recordsTheMoveOnce_andNeverMakesIt() {
    ControllerFixture f = prefillPressure(new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c.withAdvisory(true)));
    f.ticks(12);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.decisions("advisory")).singleElement().satisfies(r -> assertThat(r).containsEntry("iid", "d0")
        .containsEntry("advisory", true).containsEntry("rule", "projected_ttft_recovery"));
    assertThat(f.counter("narwhal_controller_decisions_total", "outcome", "advisory")).isGreaterThan(1);
    assertThat(f.counter("narwhal_flips_total", "from", "decode", "to", "prefill")).isZero();
    assertThat(f.fleet.roleHistory().moves()).isEmpty();
    assertThat(f.fleet.roleHistory().status()).isEqualTo("advisory");
  }

  @Test
  void flipCost_movesTheEngineWithTheLeastResidentWorkInItsRole() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 3), c -> c);
    f.engine("d0").reserveDecode(100);
    f.engine("d0").reserveDecode(100);
    f.engine("d1").reserveDecode(500);
    f.engine("d2").reserveDecode(100);
    prefillPressure(f);
    assertThat(f.ticksUntil("d2", EngineRole.PREFILL, 6)).isEqualTo(4);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.engine("d1").role()).isEqualTo(EngineRole.DECODE);
  }

  /** p0, p1 in prefill; d0 pinned in decode; decode pressed until p0 joins it at tick 3. */
  private static ControllerFixture pinnedDecodeFleet(double dwellS) {
    List<EngineSpec> specs = new ArrayList<>(ControllerFixture.fleet(2, 0));
    specs.add(EngineSpec.of("d0", "http://10.0.1.1:8000", EngineRole.DECODE).withPin(true));
    ControllerFixture f = new ControllerFixture(specs,
        c -> c.withThresholds(ControllerFixture.thresholds(t -> withDwell(t, dwellS)))).start();
    // Short prompts: the prefill demand (2 × 0.1 s per second) lets one engine carry it alone.
    return f.decodeLoad("d0", 2.0).arrivals(2, 100, 100);
  }

  /** Decode goes quiet and p1 (the only prefill engine left) is pressed. */
  private static void pressPrefill(ControllerFixture f) {
    f.decodeLoad("d0", 0.0).prefillLoad("p1", 3);
  }

  static ThresholdsConfig withPanic(ThresholdsConfig t, double ratio) {
    return new ThresholdsConfig(t.expand(), t.shrink(), t.cooldownS(), t.sustainedIntervals(), t.dwellS(), ratio,
        t.flipResidentGuard());
  }

  static ThresholdsConfig withDwell(ThresholdsConfig t, double dwellS) {
    return new ThresholdsConfig(t.expand(), t.shrink(), t.cooldownS(), t.sustainedIntervals(), dwellS,
        t.panicRatio(), t.flipResidentGuard());
  }

  static ThresholdsConfig withResidentGuard(ThresholdsConfig t, int guard) {
    return new ThresholdsConfig(t.expand(), t.shrink(), t.cooldownS(), t.sustainedIntervals(), t.dwellS(),
        t.panicRatio(), guard);
  }
}
