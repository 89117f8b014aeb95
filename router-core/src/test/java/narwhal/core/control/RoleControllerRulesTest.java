package narwhal.core.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.core.fleet.RoleMove;
import org.junit.jupiter.api.Test;

/**
 * The controller's load rules and reactive score on a manual clock: when a move is proposed, how
 * long it takes (sustained intervals, confirmations), which rule names it, and what it records.
 */
class RoleControllerRulesTest {

  @Test
  void prefillPressure_movesTheCheapestDecodeEngineToPrefill_afterSustainConfirmationsAndEvidence() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c).start();
    f.prefillLoad("p0", 3).arrivals(2, 100);

    // Tick 1: the load has held once (sustain 2). Tick 2: sustained, first confirmation (of 2).
    // Tick 3: confirmed, but only one evidence window has closed. Tick 4: the second closes: move.
    assertThat(f.ticksUntil("d0", EngineRole.PREFILL, 10)).isEqualTo(4);

    assertThat(f.engine("d1").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.decisions("blocked")).singleElement()
        .satisfies(r -> assertThat(r).containsEntry("blocked_by", "evidence").containsEntry("iid", null));
    Map<String, Object> moved = f.decisions("moved").get(0);
    assertThat(moved).containsEntry("kind", "event").containsEntry("iid", "d0").containsEntry("from", "decode")
        .containsEntry("to", "prefill").containsEntry("rule", "projected_ttft_recovery")
        .containsEntry("advisory", false).containsEntry("blocked_by", null).containsEntry("reversal", false)
        .containsEntry("loads", Map.of("prefill", 3.0, "decode", 0.0))
        // TTFT ratio: (3 s backlog / 1 engine + 1 s own prefill) / 1 s, then (3 / 2 + 1) / 1.
        .containsEntry("score_before", 4.0).containsEntry("score_after", 2.5);
    @SuppressWarnings("unchecked")
    Map<String, Object> splitAfter = (Map<String, Object>) moved.get("split_after");
    assertThat(splitAfter).containsEntry("prefill", 2).containsEntry("decode", 1);
    assertThat(f.counter("narwhal_flips_total", "from", "decode", "to", "prefill")).isEqualTo(1);
    assertThat(f.counter("narwhal_flips_total", "from", "prefill", "to", "decode")).isZero();
    assertThat(f.counter("narwhal_controller_decisions_total", "outcome", "moved")).isEqualTo(1);
    assertThat(f.counter("narwhal_controller_decisions_total", "outcome", "pending")).isEqualTo(1);
    assertThat(f.gauge("narwhal_pool_instances", "role", "prefill").intValue()).isEqualTo(2);
    assertThat(f.gauge("narwhal_instance_role", "iid", "d0", "role", "prefill").intValue()).isEqualTo(1);
    assertThat(f.gauge("narwhal_instance_role", "iid", "d0", "role", "decode").intValue()).isZero();
    List<RoleMove> history = f.fleet.roleHistory().moves();
    assertThat(history).singleElement().satisfies(m -> {
      assertThat(m.iid()).isEqualTo("d0");
      assertThat(m.rule()).isEqualTo("projected_ttft_recovery");
    });
    assertThat(f.fleet.roleHistory().status()).isEqualTo("active");
  }

  @Test
  void aLoadThatDipsBetweenTicks_isNeverSustained_soNothingMoves() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c).start();
    for (int i = 0; i < 6; i++) {
      f.prefillLoad("p0", 3).ticks(1);
      f.prefillLoad("p0", 0).ticks(1);
    }
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.decisions()).isEmpty();
    assertThat(f.counter("narwhal_controller_decisions_total", "outcome", "steady")).isEqualTo(12);
  }

  @Test
  void decodePressure_movesAPrefillEngine_underMixedPressure_afterTheConfiguredConfirmations() {
    ControllerFixture two = new ControllerFixture(ControllerFixture.fleet(2, 1), c -> c).start();
    two.decodeLoad("d0", 2.0);
    assertThat(two.ticksUntil("p0", EngineRole.DECODE, 10)).isEqualTo(3);
    assertThat(two.decisions("moved").get(0)).containsEntry("rule", "mixed_pressure")
        .containsEntry("score_before", 1.8).containsEntry("score_after", 1.0);

    ControllerFixture three = new ControllerFixture(ControllerFixture.fleet(2, 1),
        c -> c.withReactive(ControllerFixture.reactive(r -> withConfirmations(r, 3)))).start();
    three.decodeLoad("d0", 2.0);
    assertThat(three.ticksUntil("p0", EngineRole.DECODE, 10)).isEqualTo(4);
    assertThat(three.counter("narwhal_controller_decisions_total", "outcome", "pending")).isEqualTo(2);
  }

  @Test
  void aMoveThatDoesNotBeatTheScoreByTheMargin_isNotMade() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(2, 1),
        c -> c.withReactive(ControllerFixture.reactive(r -> withMargin(r, 1.0)))).start();
    f.decodeLoad("d0", 2.0).ticks(8);
    assertThat(f.engine("p0").role()).isEqualTo(EngineRole.PREFILL);
    assertThat(f.decisions()).isEmpty();
  }

  @Test
  void idlePrefillBesideBusyDecode_givesAnEngineToDecode_underSourceShrink() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(2, 1), c -> c).start();
    f.decodeLoad("d0", 0.7);
    assertThat(f.ticksUntil("p0", EngineRole.DECODE, 10)).isEqualTo(3);
    assertThat(f.decisions("moved").get(0)).containsEntry("rule", "source_shrink");
  }

  @Test
  void idleDecodeBesideBusyPrefill_givesAnEngineToPrefill_underSettledDeparture() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c).start();
    // Short prompts, so the arriving demand (0.2 s of prefill per second) stays below expand and
    // the resident backlog alone (0.7) makes the case.
    f.prefillLoad("p0", 1, 700).arrivals(2, 100, 100);
    assertThat(f.ticksUntil("d0", EngineRole.PREFILL, 10)).isEqualTo(4);
    assertThat(f.decisions("moved").get(0)).containsEntry("rule", "settled_departure");
  }

  @Test
  void steadyDemand_withNoThresholdCrossed_movesWhenTheAdjacentSplitScoresBetter() {
    ControllerFixture f = steadyDemandFleet(0.5);
    // Prefill at 0.6 and decode at 0.99 cross no threshold; a second decode engine takes TPOT
    // from 0.99 to 0.6 while TTFT goes from 0.6 to 0.9: 0.9 beats 0.99 by more than 0.05.
    assertThat(f.ticksUntil("p0", EngineRole.DECODE, 10)).isPositive();
    assertThat(f.decisions("moved").get(0)).containsEntry("rule", "steady_demand");
  }

  @Test
  void steadyDemand_belowTheDemandFloor_movesNothing() {
    ControllerFixture f = steadyDemandFleet(10);
    f.ticks(10);
    assertThat(f.engine("p0").role()).isEqualTo(EngineRole.PREFILL);
    assertThat(f.decisions()).isEmpty();
  }

  @Test
  void withoutProfiles_theLoadsAreUnpriced_andNothingMoves() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c);
    f.profiles.replaceAll(List.of());
    f.start().prefillLoad("p0", 3).arrivals(2, 100).ticks(6);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.counter("narwhal_controller_decisions_total", "outcome", "unpriced")).isEqualTo(6);
    assertThat(f.decisions()).isEmpty();
  }

  @Test
  void aFleetWithNothingToMove_leavesTheControllerOff_andSaysWhy() {
    List<EngineSpec> pinned = ControllerFixture.fleet(1, 1).stream().map(e -> e.withPin(true)).toList();
    ControllerFixture f = new ControllerFixture(pinned, c -> c);
    assertThat(f.controller.start()).isFalse();
    assertThat(f.loop.pendingTasks()).isZero();
    assertThat(f.fleet.roleHistory().status()).startsWith("off: ").contains("pinned");
  }

  @Test
  void close_stopsTheTicks() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c).start();
    f.controller.close();
    f.prefillLoad("p0", 3).arrivals(2, 100).ticks(10);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.loop.pendingTasks()).isZero();
  }

  /** 3P1D: each prefill engine holds 0.6 s of work, decode runs at 0.99; demand 2/s, no prompt. */
  private static ControllerFixture steadyDemandFleet(double demandFloor) {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(3, 1),
        c -> c.withReactive(ControllerFixture.reactive(r -> withDemandFloor(r, demandFloor)))).start();
    for (String p : List.of("p0", "p1", "p2")) {
      f.prefillLoad(p, 1, 600);
    }
    return f.decodeLoad("d0", 0.99).arrivals(2, 0, 100);
  }

  static narwhal.config.ReactiveConfig withConfirmations(narwhal.config.ReactiveConfig r, int n) {
    return new narwhal.config.ReactiveConfig(r.windowS(), n, r.utilization(), r.minArrivals(), r.demandFloor(),
        r.movementMargin(), r.stepS(), r.evidenceSpanS(), r.evidenceMaxSpanS(), r.evidenceMinArrivals(),
        r.demandRiseTolerance(), r.decodeCorrectionMin(), r.decodeCorrectionMax(), r.decodeCorrectionAlpha(),
        r.decodeCorrectionMinSamples());
  }

  static narwhal.config.ReactiveConfig withMargin(narwhal.config.ReactiveConfig r, double margin) {
    return new narwhal.config.ReactiveConfig(r.windowS(), r.confirmations(), r.utilization(), r.minArrivals(),
        r.demandFloor(), margin, r.stepS(), r.evidenceSpanS(), r.evidenceMaxSpanS(), r.evidenceMinArrivals(),
        r.demandRiseTolerance(), r.decodeCorrectionMin(), r.decodeCorrectionMax(), r.decodeCorrectionAlpha(),
        r.decodeCorrectionMinSamples());
  }

  static narwhal.config.ReactiveConfig withDemandFloor(narwhal.config.ReactiveConfig r, double floor) {
    return new narwhal.config.ReactiveConfig(r.windowS(), r.confirmations(), r.utilization(), r.minArrivals(),
        floor, r.movementMargin(), r.stepS(), r.evidenceSpanS(), r.evidenceMaxSpanS(), r.evidenceMinArrivals(),
        r.demandRiseTolerance(), r.decodeCorrectionMin(), r.decodeCorrectionMax(), r.decodeCorrectionAlpha(),
        r.decodeCorrectionMinSamples());
  }
}
