package narwhal.core.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import narwhal.config.EngineRole;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.PrefillModel;
import org.junit.jupiter.api.Test;

/**
 * The controller prices the demand arriving, not only the work the pools hold: a change of mix
 * moves an engine before any queue or stream builds up ({@link DemandProjection}).
 */
class DemandPricedMovesTest {

  @Test
  void aPromptSurge_movesADecodeEngineToPrefill_beforeAnyBacklogBuilds() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 3), c -> c).start();
    // Two 1,000-token prompts a second, 1 s of prefill each: one prefill engine would be busy
    // 200 % of the time, yet nothing is resident on it (the test holds no prefill).
    f.arrivals(2, 1000, 16);
    // Sustained by tick 2, confirmed at tick 3, and the second evidence window closes at tick 4.
    assertThat(f.ticksUntil("d0", EngineRole.PREFILL, 10)).isEqualTo(4);
    Map<String, Object> moved = f.decisions("moved").get(0);
    assertThat(moved).containsEntry("rule", "projected_ttft_recovery");
    assertThat(split(moved, "split_before")).containsEntry("prefill_demand_ratio", 2.5);
    assertThat(split(moved, "split_after")).containsEntry("prefill_demand_ratio", 1.25);
  }

  @Test
  void longOutputsArriving_moveAPrefillEngineToDecode_beforeTheStreamsAccumulate() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(2, 2), c -> c)
        .decodeCostPerSequence(0.002).start();
    // 4/s wanting 200 tokens, each stream adding 2 ms per step: 1.6 engines' worth of step time.
    // On two engines the interval settles at 10 ms / (1 - 0.8) = 50 ms, the TPOT target; on three
    // at 21.4 ms. No stream is resident yet, so the measured decode load is 0.
    f.arrivals(4, 100, 200);
    assertThat(f.ticksUntil("p0", EngineRole.DECODE, 10)).isEqualTo(3);
    Map<String, Object> moved = f.decisions("moved").get(0);
    assertThat(moved).containsEntry("rule", "mixed_pressure");
    assertThat(split(moved, "split_after")).containsEntry("decode_demand_ratio", 0.4286);
  }

  @Test
  void demandThatOnePoolCarries_movesNothing() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(2, 2), c -> c)
        .decodeCostPerSequence(0.002).start();
    // 0.4 s of prefill per second over two engines (0.25 of the 0.8 target) and 0.16 engines of
    // decode step time: both pools carry it comfortably, and the adjacent splits are no better.
    f.arrivals(2, 200, 20).ticks(12);
    assertThat(f.decisions("moved")).isEmpty();
    assertThat(f.engine("p0").role()).isEqualTo(EngineRole.PREFILL);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
  }

  @Test
  void projection_followsItsFormulas() {
    PrefillPool prefill = new PrefillPool(2, 2, 0, 0, List.of(new PrefillModel(0.01, 0.001, 0, 1, 10_000)));
    DecodePool decode = new DecodePool(2, 2, 0.02, 0, 0, 0, 64,
        List.of(new DecodeModel(0.01, 0.000_001, 0.001, 1_000_000, 64)));
    // 5/s of 500-token prompts wanting 100: own prefill 0.51 s; context 550 tokens, so each stream
    // costs (0.001 + 550 µs-per-1000) = 1.55 ms, doubled by the pool's correction (floor 20 ms
    // over the model's 10 ms).
    DemandProjection p = DemandProjection.of(new Demand(50, 10, 500, 100, true), prefill, decode);
    assertThat(p.ownPrefillS()).isEqualTo(0.51, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(p.prefillUtilization(3)).isEqualTo(5 * 0.51 / 3, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(p.decodeWork()).isEqualTo(5 * 100 * 0.0031, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(p.decodeIntervalS(4)).isEqualTo(0.02 / (1 - 1.55 / 4), org.assertj.core.data.Offset.offset(1e-9));
    assertThat(p.decodeIntervalS(1)).as("1.55 engines of work on one").isInfinite();
    assertThat(p.prefillUtilization(0)).isInfinite();
    assertThat(DemandProjection.of(new Demand(1, 10, 500, 100, false), prefill, decode))
        .as("too few arrivals to price").isEqualTo(DemandProjection.NONE);
    assertThat(DemandProjection.NONE.decodeIntervalS(2)).isZero();
    assertThat(DemandProjection.NONE.prefillUtilization(2)).isZero();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> split(Map<String, Object> row, String key) {
    return (Map<String, Object>) row.get(key);
  }
}
