package narwhal.core.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.ReactiveConfig;
import narwhal.config.SloConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileBook;
import org.junit.jupiter.api.Test;

/** The loads of section 6, per engine and per pool, and the decode floor's correction. */
class LoadSamplerTest {

  private static final PrefillModel PREFILL = new PrefillModel(0.1, 0.001, 1e-7, 1, 10_000);
  // 10 ms floor, +1 µs per resident token, +2 ms per sequence; 32 seats measured.
  private static final DecodeModel DECODE = new DecodeModel(0.01, 1e-6, 0.002, 100_000, 32);

  private final Fleet fleet = new Fleet(List.of(
      EngineSpec.of("p0", "http://10.0.0.1:8000", EngineRole.PREFILL),
      EngineSpec.of("d0", "http://10.0.1.1:8000", EngineRole.DECODE),
      EngineSpec.of("d1", "http://10.0.1.2:8000", EngineRole.DECODE)));
  private final ProfileBook book = new ProfileBook();

  private LoadSampler sampler(int correctionMinSamples) {
    ReactiveConfig r = ControllerFixture.reactive(x -> x);
    ReactiveConfig correction = new ReactiveConfig(r.windowS(), r.confirmations(), r.utilization(), r.minArrivals(),
        r.demandFloor(), r.movementMargin(), r.stepS(), r.evidenceSpanS(), r.evidenceMaxSpanS(),
        r.evidenceMinArrivals(), r.demandRiseTolerance(), 0.5, 2.0, 0.5, correctionMinSamples);
    FleetConfig config = FleetConfig.of("m", List.of(EngineSpec.of("x", "http://10.0.0.9:1", EngineRole.BOTH)))
        .withSlo(SloConfig.of(2.0, 0.05));
    return new LoadSampler(ControllerSettings.of(config.withController(config.controller().withReactive(correction))));
  }

  private void profileAll() {
    for (EngineState e : fleet.engines()) {
      book.put(new EngineProfile(e.iid(), null, PREFILL, DECODE, 0.01, 0.02));
    }
  }

  @Test
  void prefillLoad_isThePredictedResidentWorkOverTheTtftTarget() {
    profileAll();
    fleet.get("p0").reservePrefill(1000);
    fleet.get("p0").reservePrefill(3000);
    PoolLoads loads = sampler(8).sample(fleet.engines(), book);
    // 0.1 + 1.0 + 0.1 = 1.2 s and 0.1 + 3.0 + 0.9 = 4.0 s, over 2 s.
    assertThat(loads.prefill().backlogS()).isCloseTo(5.2, within(1e-9));
    assertThat(loads.prefill().load()).isCloseTo(2.6, within(1e-9));
    assertThat(loads.engine("p0").prefillLoad()).isCloseTo(2.6, within(1e-9));
    assertThat(loads.prefill().ownPrefillSeconds(1000)).isCloseTo(1.2, within(1e-9));
  }

  @Test
  void decodeLoad_isTheObservedIntervalAboveTheFloor_overTheHeadroom_pooledAsAMean() {
    profileAll();
    for (int i = 0; i < 4; i++) {
      fleet.get("d0").decodePace().tokenGaps(1, 30_000_000); // 30 ms
    }
    PoolLoads loads = sampler(8).sample(fleet.engines(), book);
    // (0.030 - 0.010) / (0.050 - 0.010) = 0.5; d1 decoded nothing and holds nothing: 0.
    assertThat(loads.engine("d0").decodeLoad()).isCloseTo(0.5, within(1e-9));
    assertThat(loads.engine("d1").decodeLoad()).isZero();
    assertThat(loads.decode().load()).isCloseTo(0.25, within(1e-9));
    assertThat(loads.decode().excessS()).isCloseTo(0.01, within(1e-9));
    assertThat(loads.decode().seats()).isEqualTo(32);
    assertThat(loads.priced()).isTrue();
    assertThat(loads.covered()).isTrue();
  }

  @Test
  void anEngineThatProducedNoToken_isPricedFromItsResidentDecodes() {
    profileAll();
    fleet.get("d0").reserveDecode(5000);
    fleet.get("d0").reserveDecode(5000);
    PoolLoads loads = sampler(8).sample(fleet.engines(), book);
    // 0.01 + 10000 × 1e-6 + 2 × 0.002 = 0.024 s: load 0.014 / 0.04.
    assertThat(loads.engine("d0").intervalS()).isCloseTo(0.024, within(1e-12));
    assertThat(loads.engine("d0").decodeLoad()).isCloseTo(0.35, within(1e-9));
  }

  @Test
  void decodeCorrection_appliesAfterMinSamples_smoothed_andClamped() {
    profileAll();
    LoadSampler s = sampler(3);
    // An idle engine observed at 20 ms against a predicted 10 ms: ratio 2.
    for (int tick = 1; tick <= 2; tick++) {
      fleet.get("d0").decodePace().tokenGaps(1, 20_000_000);
      PoolLoads loads = s.sample(fleet.engines(), book);
      assertThat(loads.engine("d0").floorS()).as("tick %d: no correction yet", tick).isEqualTo(0.01);
      assertThat(loads.engine("d0").decodeLoad()).isCloseTo(0.25, within(1e-9));
    }
    fleet.get("d0").decodePace().tokenGaps(1, 20_000_000);
    PoolLoads corrected = s.sample(fleet.engines(), book);
    assertThat(s.correction("d0")).isCloseTo(2.0, within(1e-9));
    assertThat(corrected.engine("d0").floorS()).isCloseTo(0.02, within(1e-12));
    assertThat(corrected.engine("d0").decodeLoad()).isZero();

    // Ratio 8 moves the smoothed value to 2 + 0.5 × 6 = 5, held at the bound of 2.
    fleet.get("d0").decodePace().tokenGaps(1, 80_000_000);
    s.sample(fleet.engines(), book);
    assertThat(s.correction("d0")).isEqualTo(2.0);
  }

  @Test
  void unprofiledEngines_haveNoLoad_andLeaveThePoolsUncovered() {
    book.put(new EngineProfile("p0", null, PREFILL, DECODE, 0.01, 0.02));
    book.put(new EngineProfile("d0", null, PREFILL, DECODE, 0.01, 0.02));
    PoolLoads loads = sampler(8).sample(fleet.engines(), book);
    assertThat(loads.engine("d1").decodeLoad()).isNaN();
    assertThat(loads.decode().profiled()).isEqualTo(1);
    assertThat(loads.decode().size()).isEqualTo(2);
    assertThat(loads.priced()).isTrue();
    assertThat(loads.covered()).isFalse();

    PoolLoads none = sampler(8).sample(fleet.engines(), new ProfileBook());
    assertThat(none.priced()).isFalse();
    assertThat(none.prefill().load()).isNaN();
  }
}
