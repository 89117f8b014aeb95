package narwhal.core.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.SloConfig;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileBook;
import org.junit.jupiter.api.Test;

/**
 * Priced placement (Arrow's Alg. 1) with a profile book built here: the cheapest engine that
 * meets the SLO wins over the least loaded one, near-ties go by Arrow's lexicographic cost, exact
 * ties to the lowest iid, and when none meets the SLO the cheapest is taken and says so; the
 * fleet's filters and preferences still hold on top. Projections are checked value by value.
 */
class PricedPlacementTest {

  private static final long NOW = 1_000_000_000L;
  /** slo.ttft_s 1 s, slo.tpot_s 30 ms. */
  private static final SloConfig SLO = SloConfig.of(1.0, 0.03);
  /** 1 ms per prompt token, nothing else: a prefill of L tokens takes L ms. */
  private static final PrefillModel FAST = new PrefillModel(0, 0.001, 0, 1, 100_000);
  /** 10 ms per prompt token. */
  private static final PrefillModel SLOW = new PrefillModel(0, 0.01, 0, 1, 100_000);
  /** 10 ms floor, 1 µs per resident KV token, 1 ms per sequence. */
  private static final DecodeModel DECODE = new DecodeModel(0.01, 1e-6, 0.001, 1_000_000, 256);
  private static final DecodeModel SLOW_DECODE = new DecodeModel(0.05, 1e-6, 0.001, 1_000_000, 256);

  private final ProfileBook book = ProfileBook.empty();
  private final PlacementCost cost = new PlacementCost(book, SLO);
  private final PrefillRanking prefill = new PrefillRanking(cost);
  private final DecodeRanking decode = new DecodeRanking(cost);

  private static Fleet fleet(Object... iidRolePairs) {
    List<EngineSpec> specs = new ArrayList<>();
    for (int i = 0; i < iidRolePairs.length; i += 2) {
      specs.add(EngineSpec.of((String) iidRolePairs[i], "http://127.0.0.1:" + (8000 + i), (EngineRole) iidRolePairs[i + 1]));
    }
    return new Fleet(specs);
  }

  private void profile(String iid, PrefillModel p, DecodeModel d) {
    book.put(new EngineProfile(iid, null, p, d, 0.01, 0.02));
  }

  private static void prefills(Fleet f, String iid, int n, long tokens) {
    for (int i = 0; i < n; i++) {
      f.get(iid).reservePrefill(tokens);
    }
  }

  private static void decodes(Fleet f, String iid, int n, long kvTokens) {
    for (int i = 0; i < n; i++) {
      f.get(iid).reserveDecode(kvTokens);
    }
  }

  @Test
  void projections_areTheProfilesAppliedToWhatIsResident() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "d1", EngineRole.DECODE);
    profile("p1", new PrefillModel(0.01, 0.001, 1e-6, 1, 100_000), DECODE);
    profile("d1", FAST, DECODE);
    prefills(f, "p1", 2, 100);
    decodes(f, "d1", 3, 1000);

    // backlog: 2 × 0.01 + 0.001 × 200 + 1e-6 × (100² + 100²)
    assertThat(cost.backlogSeconds(f.get("p1"))).isCloseTo(0.02 + 0.2 + 0.02, within(1e-12));
    assertThat(cost.ownPrefillSeconds(f.get("p1"), 1000)).isCloseTo(0.01 + 1 + 1, within(1e-12));
    assertThat(cost.prefillSeconds(f.get("p1"), 1000)).isCloseTo(0.24 + 2.01, within(1e-12));
    // 3000 resident + 500 for this request, 4 sequences: 0.01 + 3500e-6 + 0.004
    assertThat(cost.decodeIntervalSeconds(f.get("d1"), 500)).isCloseTo(0.0175, within(1e-12));
    book.replaceAll(List.of());
    assertThat(cost.prefillSeconds(f.get("p1"), 1000)).isNaN();
    assertThat(cost.decodeIntervalSeconds(f.get("d1"), 500)).isNaN();
  }

  @Test
  void prefill_cheapestThatMeetsTheSlo_beatsTheLeastLoaded() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "p2", EngineRole.PREFILL);
    profile("p1", FAST, DECODE);
    profile("p2", SLOW, DECODE);
    prefills(f, "p1", 2, 100); // 0.2 s queued on the fast engine; the slow one is idle

    EngineState leastLoaded = f.pickPrefill(Set.of(), NOW);
    EngineState priced = f.pickPrefill(Set.of(), NOW, prefill.forRequest(100, 0));

    assertThat(leastLoaded.iid()).isEqualTo("p2");
    // p1: 0.2 queued + 0.1 = 0.3 s; p2: 0 + 1.0 s. Both meet slo.ttft_s (1 s), p1 is cheaper.
    assertThat(priced.iid()).isEqualTo("p1");
    assertThat(prefill.meets(priced)).isTrue();
  }

  @Test
  void prefill_exactTies_goToTheLowestIid_whateverTheFleetOrder() {
    Fleet f = fleet("p2", EngineRole.PREFILL, "p1", EngineRole.PREFILL);
    profile("p1", FAST, DECODE);
    profile("p2", FAST, DECODE);

    assertThat(f.pickPrefill(Set.of(), NOW, prefill.forRequest(50, 0)).iid()).isEqualTo("p1");
  }

  @Test
  void prefill_nearTies_goToFewerDecodeTokensResident_thenLessQueuedWork() {
    Fleet f = fleet("p1", EngineRole.BOTH, "p2", EngineRole.BOTH);
    profile("p1", FAST, DECODE);
    profile("p2", FAST, DECODE);
    decodes(f, "p1", 1, 5000); // p1 still finishes a decode
    prefills(f, "p2", 1, 3);   // p2 has 3 ms queued: within the 10 ms band (1 % of slo.ttft_s)

    assertThat(f.pickPrefill(Set.of(), NOW, prefill.forRequest(100, 0)).iid()).isEqualTo("p2");

    prefills(f, "p2", 1, 20);  // 23 ms queued: out of the band, so the projection decides
    assertThat(f.pickPrefill(Set.of(), NOW, prefill.forRequest(100, 0)).iid()).isEqualTo("p1");
  }

  @Test
  void prefill_noneMeetsTheSlo_theCheapestIsTaken_andDoesNotMeetIt() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "p2", EngineRole.PREFILL);
    profile("p1", SLOW, DECODE);
    profile("p2", SLOW, DECODE);
    prefills(f, "p1", 1, 100); // 1 s queued

    EngineState picked = f.pickPrefill(Set.of(), NOW, prefill.forRequest(150, 0));

    assertThat(picked.iid()).isEqualTo("p2"); // 1.5 s against p1's 2.5 s
    assertThat(prefill.meets(picked)).isFalse();
  }

  @Test
  void prefill_whatTheRequestWaitedCounts_towardMeetingTheSlo() {
    Fleet f = fleet("p1", EngineRole.PREFILL);
    profile("p1", FAST, DECODE);

    assertThat(prefill.forRequest(500, 0.5).meets(f.get("p1"))).isTrue();   // 0.5 + 0.5 = 1.0: meets
    assertThat(prefill.forRequest(500, 0.501).meets(f.get("p1"))).isFalse(); // 1.001 s
  }

  @Test
  void decode_cheapestIntervalThatMeetsTheTpot_beatsTheLeastLoaded() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "d1", EngineRole.DECODE, "d2", EngineRole.DECODE);
    profile("d1", FAST, DECODE);
    profile("d2", FAST, SLOW_DECODE);
    decodes(f, "d1", 3, 1000);

    EngineState leastLoaded = f.pickDecode("p1", Set.of(), NOW);
    EngineState priced = f.pickDecode("p1", Set.of(), NOW, decode.forRequest(1000));

    assertThat(leastLoaded.iid()).isEqualTo("d2");
    // d1: 0.01 + 4000e-6 + 4 × 0.001 = 18 ms; d2: 0.05 + 1000e-6 + 0.001 = 52 ms, over 30 ms
    assertThat(priced.iid()).isEqualTo("d1");
    assertThat(decode.meets(priced)).isTrue();
  }

  @Test
  void decode_noneMeetsTheTpot_theCheapestIsTaken_andDoesNotMeetIt() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "d1", EngineRole.DECODE, "d2", EngineRole.DECODE);
    profile("d1", FAST, SLOW_DECODE);
    profile("d2", FAST, SLOW_DECODE);
    decodes(f, "d2", 1, 1000);

    EngineState picked = f.pickDecode("p1", Set.of(), NOW, decode.forRequest(1000));

    assertThat(picked.iid()).isEqualTo("d1");
    assertThat(decode.meets(picked)).isFalse();
  }

  @Test
  void decode_exactTies_goToTheLowestIid() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "d2", EngineRole.DECODE, "d1", EngineRole.DECODE);
    profile("d1", FAST, DECODE);
    profile("d2", FAST, DECODE);

    assertThat(f.pickDecode("p1", Set.of(), NOW, decode.forRequest(10)).iid()).isEqualTo("d1");
  }

  @Test
  void pricing_needsAProfileForEveryEngineInPlacementThatCouldTakeThePhase() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "p2", EngineRole.PREFILL, "d1", EngineRole.DECODE);
    assertThat(cost.pricesPrefill(f)).as("empty book").isFalse();

    profile("p1", FAST, DECODE);
    profile("d1", FAST, DECODE);
    assertThat(cost.pricesPrefill(f)).as("p2 has no profile").isFalse();
    assertThat(cost.pricesDecode(f)).isTrue();

    f.get("p2").setCondition(EngineCondition.EJECTED, "connection");
    assertThat(cost.pricesPrefill(f)).as("p2 is out of placement").isTrue();
  }

  @Test
  void theFleetsRulesHoldOnTop_heldEnginesAvoidanceAndTheProducer() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "p2", EngineRole.PREFILL, "p3", EngineRole.PREFILL,
        "d1", EngineRole.BOTH, "d2", EngineRole.DECODE);
    profile("p1", FAST, DECODE);
    profile("p2", FAST, DECODE);
    profile("p3", new PrefillModel(0, 0.005, 0, 1, 100_000), DECODE);
    profile("d1", SLOW, DECODE); // can prefill too, slowest at it
    profile("d2", FAST, SLOW_DECODE);

    // The cheapest prefill engine is held by the breaker: never picked.
    f.get("p1").setCondition(EngineCondition.HELD, "stream");
    assertThat(f.pickPrefill(Set.of(), NOW, prefill.forRequest(10, 0)).iid()).isEqualTo("p2");
    // Avoidance is a preference: the next cheapest, then the avoided one rather than none.
    assertThat(f.pickPrefill(Set.of("p2"), NOW, prefill.forRequest(10, 0)).iid()).isEqualTo("p3");
    assertThat(f.pickPrefill(Set.of("p2", "p3"), NOW, prefill.forRequest(10, 0)).iid()).isEqualTo("d1");
    assertThat(f.pickPrefill(Set.of("p2", "p3", "d1"), NOW, prefill.forRequest(10, 0)).iid()).isEqualTo("p2");
    // Quarantine holds the cheapest out while another engine covers it.
    f.get("p2").quarantineUntil(NOW + 1);
    assertThat(f.pickPrefill(Set.of(), NOW, prefill.forRequest(10, 0)).iid()).isEqualTo("p3");
    // Decode avoids the producer even when it is the cheapest decode engine.
    assertThat(f.pickDecode("d1", Set.of(), NOW, decode.forRequest(10)).iid()).isEqualTo("d2");
    assertThat(f.pickDecode("p1", Set.of(), NOW, decode.forRequest(10)).iid()).isEqualTo("d1");
  }

  @Test
  void decode_onlyPairsEnginesOfTheProducersDialect() {
    Fleet f = new Fleet(List.of(
        EngineSpec.of("p1", "http://127.0.0.1:8000", EngineRole.PREFILL),
        EngineSpec.of("d1", "http://127.0.0.1:8001", EngineRole.DECODE).withDialect("sglang"),
        EngineSpec.of("d2", "http://127.0.0.1:8002", EngineRole.DECODE)));
    profile("d1", FAST, DECODE);
    profile("d2", FAST, SLOW_DECODE);

    assertThat(f.pickDecode("p1", Set.of(), NOW, decode.forRequest(10)).iid()).isEqualTo("d2");
  }
}
