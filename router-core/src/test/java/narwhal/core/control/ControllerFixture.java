package narwhal.core.control;

import com.codahale.metrics.MetricRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import narwhal.config.ControllerConfig;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.ReactiveConfig;
import narwhal.config.SloConfig;
import narwhal.config.ThresholdsConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.fleet.Reservation;
import narwhal.core.journal.Journal;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.metrics.SeriesName;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileBook;
import narwhal.testing.ManualScheduler;

/**
 * A role controller over a fleet the test loads by hand, on a manual clock. Every engine gets the
 * same profile: a prefill of {@link #PROMPT} tokens takes 1 s (so each resident prefill adds 1.0
 * to an engine's prefill load against the 1 s TTFT target), and the decode floor is 10 ms against
 * a 50 ms TPOT target (a decode gap of 50 ms is load 1.0, 90 ms is 2.0).
 *
 * <p>The defaults make every mechanism visible in a few ticks: one tick per second, an evaluation
 * every tick, conditions sustained after 2 ticks, 2 confirmations, evidence windows of 2 s, no
 * decode correction (see {@link #reactive}); each test changes what it examines.
 */
final class ControllerFixture {

  static final long PROMPT = 1000;
  static final double TTFT_S = 1.0;
  static final double TPOT_S = 0.05;
  static final double FLOOR_S = 0.01;

  final ManualScheduler loop = new ManualScheduler();
  final List<Map<String, Object>> rows = new ArrayList<>();
  final MetricRegistry registry = new MetricRegistry();
  final Fleet fleet;
  final ProfileBook profiles = new ProfileBook();
  final RoleController controller;
  final FleetConfig config;
  /** Per engine, the decode gap (seconds) each stream shows every tick, fed before each tick. */
  private final Map<String, Double> decodeGaps = new HashMap<>();
  private final Map<String, List<Reservation>> prefills = new HashMap<>();
  private long arrivalsPerTick;
  private long promptPerArrival = PROMPT;
  private long wantedPerArrival = 100;

  ControllerFixture(List<EngineSpec> engines, UnaryOperator<ControllerConfig> tweak) {
    FleetConfig base = FleetConfig.of("m", engines).withSlo(SloConfig.of(TTFT_S, TPOT_S));
    ControllerConfig controller = base.controller().toBuilder()
        .monitorIntervalS(1).thresholds(thresholds(b -> b)).reactive(reactive(b -> b)).build();
    this.config = base.withController(tweak.apply(controller));
    this.fleet = new Fleet(config.engines());
    for (EngineSpec e : engines) {
      profiles.put(profile(e.iid()));
    }
    Journal journal = new Journal() {
      @Override
      public void record(Map<String, Object> row) {
        rows.add(row);
      }

      @Override
      public void close() {}
    };
    this.controller = new RoleController(config, fleet, profiles, loop, journal,
        Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC),
        new RouterMetrics(registry, config.slo()));
  }

  /** {@code p0..}, {@code d0..}: the usual fleet, every engine unpinned. */
  static List<EngineSpec> fleet(int prefill, int decode) {
    List<EngineSpec> specs = new ArrayList<>();
    for (int i = 0; i < prefill; i++) {
      specs.add(EngineSpec.of("p" + i, "http://10.0.0." + (i + 1) + ":8000", EngineRole.PREFILL));
    }
    for (int i = 0; i < decode; i++) {
      specs.add(EngineSpec.of("d" + i, "http://10.0.1." + (i + 1) + ":8000", EngineRole.DECODE));
    }
    return specs;
  }

  static EngineProfile profile(String iid) {
    return profile(iid, 0);
  }

  /** The usual profile, each active sequence adding {@code perSequenceS} to the decode interval. */
  static EngineProfile profile(String iid, double perSequenceS) {
    return new EngineProfile(iid, null, new PrefillModel(0, 0.001, 0, 1, 100_000),
        new DecodeModel(FLOOR_S, 0, perSequenceS, 1_000_000, 64), 0.01, 0.02);
  }

  /** Re-profiles every engine so that each active sequence adds {@code perSequenceS} to its decode interval. */
  ControllerFixture decodeCostPerSequence(double perSequenceS) {
    for (EngineState e : fleet.engines()) {
      profiles.put(profile(e.iid(), perSequenceS));
    }
    return this;
  }

  /** Thresholds for tests: expand 1, shrink 0.5, cooldown 10 s, sustained 2, no dwell, no panic, no guard. */
  static ThresholdsConfig thresholds(UnaryOperator<ThresholdsConfig> tweak) {
    return tweak.apply(new ThresholdsConfig(1.0, 0.5, 10, 2, 0, 0, 0));
  }

  /**
   * Reactive settings for tests: window 10 s, 2 confirmations, utilization 0.8, 2 arrivals to
   * score, demand floor 0.5/s, margin 0.05, a step of 1 s, evidence windows 2–4 s of 2 arrivals,
   * rise tolerance 0.25, and a decode correction that never applies (10⁶ samples).
   */
  static ReactiveConfig reactive(UnaryOperator<ReactiveConfig> tweak) {
    return tweak.apply(new ReactiveConfig(10, 2, 0.8, 2, 0.5, 0.05, 1, 2, 4, 2, 0.25, 0.5, 2.0, 0.2, 1_000_000));
  }

  EngineState engine(String iid) {
    return fleet.get(iid);
  }

  /** Holds {@code n} resident prefills of {@link #PROMPT} tokens on {@code iid} (load n, while in the pool). */
  ControllerFixture prefillLoad(String iid, int n) {
    return prefillLoad(iid, n, PROMPT);
  }

  /** Holds {@code n} resident prefills of {@code tokens} tokens each (load n × tokens / 1000). */
  ControllerFixture prefillLoad(String iid, int n, long tokens) {
    List<Reservation> held = prefills.computeIfAbsent(iid, k -> new ArrayList<>());
    held.forEach(Reservation::release);
    held.clear();
    for (int i = 0; i < n; i++) {
      held.add(engine(iid).reservePrefill(tokens));
    }
    return this;
  }

  /** Makes {@code iid}'s streams show a decode load of {@code load} every tick from now on. */
  ControllerFixture decodeLoad(String iid, double load) {
    decodeGaps.put(iid, FLOOR_S + load * (TPOT_S - FLOOR_S));
    return this;
  }

  /** {@code n} arrivals every tick from now on, each of {@link #PROMPT} tokens wanting {@code wanted}. */
  ControllerFixture arrivals(long n, long wanted) {
    return arrivals(n, PROMPT, wanted);
  }

  /** {@code n} arrivals every tick from now on, each of {@code prompt} tokens wanting {@code wanted}. */
  ControllerFixture arrivals(long n, long prompt, long wanted) {
    arrivalsPerTick = n;
    promptPerArrival = prompt;
    wantedPerArrival = wanted;
    return this;
  }

  ControllerFixture start() {
    controller.start();
    loop.runPending();
    return this;
  }

  /** Runs {@code n} monitor ticks, feeding the configured decode gaps and arrivals before each. */
  ControllerFixture ticks(int n) {
    for (int i = 0; i < n; i++) {
      for (Map.Entry<String, Double> g : decodeGaps.entrySet()) {
        for (int k = 0; k < 10; k++) {
          engine(g.getKey()).decodePace().tokenGaps(1, Math.round(g.getValue() * 1e9));
        }
      }
      for (long k = 0; k < arrivalsPerTick; k++) {
        fleet.arrivals().arrived(promptPerArrival, wantedPerArrival);
      }
      loop.advance(1, TimeUnit.SECONDS);
    }
    return this;
  }

  /** Ticks until {@code iid} has {@code role}, at most {@code limit} ticks; returns the ticks taken, or -1. */
  int ticksUntil(String iid, EngineRole role, int limit) {
    for (int i = 1; i <= limit; i++) {
      ticks(1);
      if (engine(iid).role() == role) {
        return i;
      }
    }
    return -1;
  }

  List<Map<String, Object>> decisions() {
    return rows.stream().filter(r -> ControllerJournal.EVENT.equals(r.get("event"))).toList();
  }

  List<Map<String, Object>> decisions(String outcome) {
    return decisions().stream().filter(r -> outcome.equals(r.get("outcome"))).toList();
  }

  long counter(String family, String... labels) {
    return registry.counter(SeriesName.of(family, labels)).getCount();
  }

  Number gauge(String family, String... labels) {
    return (Number) registry.getGauges().get(SeriesName.of(family, labels)).getValue();
  }
}
