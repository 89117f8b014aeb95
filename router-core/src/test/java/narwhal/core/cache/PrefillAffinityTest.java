package narwhal.core.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import narwhal.config.CacheConfig;
import narwhal.config.CacheMode;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.SloConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.fleet.Reservation;
import narwhal.core.placement.PlacementCost;
import narwhal.core.placement.PrefillRanking;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileBook;
import narwhal.prefix.IndexTrust;
import narwhal.prefix.PrefixCacheView;
import narwhal.prefix.PromptBlocks;
import org.junit.jupiter.api.Test;

/**
 * Cache-aware prefill placement against a scripted index: the prompt goes where its prefix is
 * cached, priced for the uncached part; and the hot-prefix guard: one popular prefix cached on one
 * engine does not pile every request there, it spills to the next engine once the cached one's
 * projected time to first token is more than {@code cache.hot_prefix_margin} above the other's.
 */
class PrefillAffinityTest {

  private static final long NOW = 1_000_000_000L;
  /** 5 ms per prefill, 0.1 ms per prompt token: a 2,000-token prompt alone takes 0.205 s. */
  private static final PrefillModel PREFILL = new PrefillModel(0.005, 0.0001, 0, 1, 100_000);
  private static final DecodeModel DECODE = new DecodeModel(0.01, 1e-6, 0.001, 1_000_000, 256);

  private final ProfileBook book = ProfileBook.empty();
  private final PlacementCost cost = new PlacementCost(book, SloConfig.of(2.0, 0.05));
  /** The scripted index: engine → cached tokens of any prompt, and its trust. */
  private final Map<String, Integer> cached = new HashMap<>();
  private final Map<String, IndexTrust> trust = new HashMap<>();
  private final PrefixCacheView view = new PrefixCacheView() {
    @Override
    public PromptBlocks blocks(int[] tokenIds) {
      return new PromptBlocks(new long[tokenIds.length / 16], tokenIds.length, 16);
    }

    @Override
    public int cachedTokens(String iid, PromptBlocks prompt) {
      return cached.getOrDefault(iid, 0);
    }

    @Override
    public IndexTrust trust(String iid) {
      return trust.getOrDefault(iid, IndexTrust.EVENTS);
    }

    @Override
    public void placed(String iid, PromptBlocks prompt) {}

    @Override
    public void checked(String iid, long predictedTokens, long reportedTokens) {}
  };

  private Fleet fleet(String... iids) {
    Fleet f = new Fleet(java.util.Arrays.stream(iids)
        .map(iid -> EngineSpec.of(iid, "http://127.0.0.1:1", EngineRole.PREFILL)).toList());
    for (String iid : iids) {
      book.put(new EngineProfile(iid, null, PREFILL, DECODE, 0.01, 0.02));
    }
    return f;
  }

  private CachePlacement placement(double margin) {
    CachePlacement p = new CachePlacement(CacheConfig.defaults().withMode(CacheMode.EVENTS).withHotPrefixMargin(margin));
    p.use(view);
    return p;
  }

  private static int[] prompt(int n) {
    return new int[n];
  }

  private PrefillAffinity.Choice place(CachePlacement p, Fleet f, PromptCache prompt, long tokens) {
    PrefillRanking ranking = new PrefillRanking(cost).forRequest(tokens, 0, prompt::usable);
    return p.affinity().place(f, Set.of(), NOW, prompt, ranking);
  }

  @Test
  void theUncachedPartIsWhatIsPriced() {
    Fleet f = fleet("p0");
    // 2,000 tokens of which 1,600 cached: 5 ms + 0.1 ms × 400.
    assertThat(cost.ownPrefillSeconds(f.get("p0"), 2000, 1600)).isCloseTo(0.045, within(1e-12));
    assertThat(cost.ownPrefillSeconds(f.get("p0"), 2000, 0)).isCloseTo(0.205, within(1e-12));
    // A reservation weighs what the engine will compute: the uncached tokens.
    Reservation r = f.get("p0").reservePrefill(2000, 1600);
    assertThat(f.get("p0").residentPrefillTokens()).isEqualTo(400);
    r.release();
    assertThat(f.get("p0").residentPrefillTokens()).isZero();
  }

  @Test
  void aPromptGoesWhereItsPrefixIsCached_evenPastTheTieBreak() {
    Fleet f = fleet("p0", "p1");
    cached.put("p1", 1600);
    CachePlacement p = placement(0.25);
    PrefillAffinity.Choice c = place(p, f, p.prompt(prompt(2000)), 2000);
    assertThat(c.engine().iid()).isEqualTo("p1");
    assertThat(c.label()).isEqualTo(CacheLabel.HIT);
    assertThat(c.predictedTokens()).isEqualTo(1600);
    assertThat(c.usableTokens()).isEqualTo(1600);
  }

  @Test
  void nothingCachedAnywhere_isAMiss_placedByPrice() {
    Fleet f = fleet("p0", "p1");
    CachePlacement p = placement(0.25);
    PrefillAffinity.Choice c = place(p, f, p.prompt(prompt(2000)), 2000);
    assertThat(c.engine().iid()).isEqualTo("p0");
    assertThat(c.label()).isEqualTo(CacheLabel.MISS);
  }

  @Test
  void aHotPrefix_spillsToTheNextEngine_onceTheCachedOnesTtftIsPastTheMargin() {
    Fleet f = fleet("p0", "p1");
    cached.put("p0", 1600); // a popular system prompt, cached on p0 only
    CachePlacement p = placement(0.25);
    int onP0 = 0;
    String firstSpill = null;
    int requestsBeforeSpill = 0;
    // Requests arrive and hold their reservations (nothing finishes): where do they go?
    for (int i = 0; i < 12; i++) {
      PromptCache prompt = p.prompt(prompt(2000));
      PrefillAffinity.Choice c = place(p, f, prompt, 2000);
      if (c.engine().iid().equals("p0")) {
        onP0++;
        assertThat(c.label()).isEqualTo(CacheLabel.HIT);
      } else if (firstSpill == null) {
        firstSpill = c.engine().iid();
        requestsBeforeSpill = i;
        assertThat(c.label()).isEqualTo(CacheLabel.SPILL);
        // The guard's arithmetic: p0's projection is past (1 + margin) × p1's.
        PrefillRanking r = new PrefillRanking(cost).forRequest(2000, 0, prompt::usable);
        assertThat(r.projectedSeconds(f.get("p0"))).isGreaterThan(1.25 * r.projectedSeconds(f.get("p1")));
      }
      c.engine().reservePrefill(2000, c.usableTokens());
    }
    assertThat(firstSpill).as("the hot prefix spilled").isEqualTo("p1");
    // p1 alone costs 0.205 s; p0's backlog grows 0.045 s per request, so p0 keeps it while
    // k × 0.045 + 0.045 <= 1.25 × 0.205, i.e. for the first 5.
    assertThat(requestsBeforeSpill).isEqualTo(5);
    assertThat(onP0).isLessThan(12);
  }

  @Test
  void withoutMargin_itIsPurePrice_andAHugeMarginKeepsTheAffinity() {
    Fleet f = fleet("p0", "p1");
    cached.put("p0", 1600);
    CachePlacement none = placement(0);
    for (int i = 0; i < 5; i++) {
      PrefillAffinity.Choice c = place(none, f, none.prompt(prompt(2000)), 2000);
      c.engine().reservePrefill(2000, c.usableTokens());
    }
    // Pure price: p0 until its backlog plus 45 ms passes p1's 205 ms: 4 requests, then p1.
    assertThat(f.get("p0").residentPrefill()).isEqualTo(4);
    CachePlacement sticky = placement(100);
    Fleet g = fleet("p0", "p1");
    for (int i = 0; i < 10; i++) {
      PrefillAffinity.Choice c = place(sticky, g, sticky.prompt(prompt(2000)), 2000);
      c.engine().reservePrefill(2000, c.usableTokens());
    }
    assertThat(g.get("p0").residentPrefill()).isEqualTo(10);
  }

  @Test
  void anUntrustedIndex_isPricedAsHoldingNothing() {
    Fleet f = fleet("p0", "p1");
    cached.put("p1", 1600);
    trust.put("p1", IndexTrust.UNTRUSTED);
    CachePlacement p = placement(0.25);
    PrefillAffinity.Choice c = place(p, f, p.prompt(prompt(2000)), 2000);
    assertThat(c.engine().iid()).isEqualTo("p0");
    assertThat(c.label()).isEqualTo(CacheLabel.MISS);
  }

  @Test
  void anApproximateIndex_labelsItsPlacements() {
    Fleet f = fleet("p0", "p1");
    cached.put("p1", 1600);
    trust.put("p0", IndexTrust.APPROXIMATE);
    trust.put("p1", IndexTrust.APPROXIMATE);
    CachePlacement p = placement(0.25);
    assertThat(place(p, f, p.prompt(prompt(2000)), 2000).label()).isEqualTo(CacheLabel.APPROXIMATE);
  }

  @Test
  void withoutProfiles_residentRequestsStandInForTheProjection() {
    Fleet f = new Fleet(List.of(EngineSpec.of("p0", "http://127.0.0.1:1", EngineRole.PREFILL),
        EngineSpec.of("p1", "http://127.0.0.1:2", EngineRole.PREFILL)));
    cached.put("p1", 1600);
    CachePlacement p = placement(0.25);
    List<String> placed = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      PrefillAffinity.Choice c = p.affinity().place(f, Set.of(), NOW, p.prompt(prompt(2000)), null);
      placed.add(c.engine().iid());
      c.engine().reservePrefill(2000, c.usableTokens());
    }
    // p1 keeps it while it has at most 1.25 × p0's resident requests + 1.
    assertThat(placed).containsExactly("p1", "p1", "p0", "p1");
  }

  @Test
  void theReportedCachedTokens_feedTheSelfCheck_andAbsenceMeansZeroOnceAnEngineReports() {
    List<long[]> checks = new java.util.ArrayList<>();
    CachePlacement p = new CachePlacement(CacheConfig.defaults().withMode(CacheMode.EVENTS));
    p.use(new PrefixCacheView() {
      @Override public PromptBlocks blocks(int[] ids) { return new PromptBlocks(new long[0], ids.length, 16); }
      @Override public int cachedTokens(String iid, PromptBlocks prompt) { return 0; }
      @Override public IndexTrust trust(String iid) { return IndexTrust.EVENTS; }
      @Override public void placed(String iid, PromptBlocks prompt) {}
      @Override public void checked(String iid, long pr, long re) { checks.add(new long[] {pr, re}); }
    });
    PromptCache prompt = p.prompt(prompt(100));
    assertThat(p.answered("p0", prompt, 32, -1)).as("never reported: unknown").isNull();
    assertThat(p.answered("p0", prompt, 32, 32)).isEqualTo(32L);
    assertThat(p.answered("p0", prompt, 0, -1)).as("vLLM omits 0 once it reports").isEqualTo(0L);
    assertThat(checks).hasSize(2);
  }
}
