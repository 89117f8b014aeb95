package narwhal.core.request;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.cache.CacheLabel;
import narwhal.core.cache.CachePlacement;
import narwhal.core.cache.PrefillAffinity;
import narwhal.core.cache.PromptCache;
import narwhal.core.placement.DecodeRanking;
import narwhal.core.placement.PlacementCost;
import narwhal.core.placement.PrefillRanking;
import org.jspecify.annotations.Nullable;

/**
 * One request's placements: priced ({@link PrefillRanking}, {@link DecodeRanking}) when every
 * engine that could take the phase has a profile, else least resident work as without profiles;
 * either way on top of the fleet's filters and preferences ({@link Fleet}). Remembers which
 * phases a priced placement had to put on an engine projected to miss the SLO (the journal's
 * {@code unserved}). The rankings are made on first use and reused by later attempts, so a
 * request allocates them at most once. Confined to the request's loop.
 */
final class PricedPlacement {

  private final Fleet fleet;
  private final PlacementCost cost;
  private @Nullable PrefillRanking prefillRanking;
  private @Nullable DecodeRanking decodeRanking;
  private boolean priced;
  private boolean prefillUnserved;
  private boolean decodeUnserved;
  /** Cache-aware placement: the request's prompt as the index sees it (inactive when off). */
  private final CachePlacement cache;
  private PromptCache prompt;
  /** The last prefill placement's cache decision, or null before one. */
  private PrefillAffinity.@Nullable Choice lastPrefill;

  PricedPlacement(Fleet fleet, PlacementCost cost) {
    this(fleet, cost, CachePlacement.off());
  }

  PricedPlacement(Fleet fleet, PlacementCost cost, CachePlacement cache) {
    this.fleet = fleet;
    this.cost = cost;
    this.cache = cache;
    this.prompt = cache.prompt(null);
  }

  /** The request's prompt for cache-aware placement, once sized. */
  void usePrompt(PromptCache sized) {
    this.prompt = sized;
  }

  PromptCache prompt() {
    return prompt;
  }

  /** How the cache decided the last prefill placement ({@code off} when it did not apply). */
  CacheLabel cacheLabel() {
    return lastPrefill == null ? CacheLabel.OFF : lastPrefill.label();
  }

  /** The cached tokens the index predicted on the last prefill placement's engine (0: none or off). */
  int predictedCachedTokens() {
    return lastPrefill == null ? 0 : lastPrefill.predictedTokens();
  }

  /** The cached tokens placement counted on there: what the prefill is priced and reserved without. */
  int usableCachedTokens() {
    return lastPrefill == null ? 0 : lastPrefill.usableTokens();
  }

  /**
   * The prefill engine for an attempt; null only when no engine in placement can prefill.
   *
   * @param elapsedS seconds since the request arrived, part of its projected time to first token
   */
  @Nullable EngineState prefill(Set<String> avoid, long nowNanos, long promptTokens, double elapsedS) {
    if (prompt.active()) {
      return cacheAwarePrefill(avoid, nowNanos, promptTokens, elapsedS);
    }
    if (!cost.pricesPrefill(fleet)) {
      return fleet.pickPrefill(avoid, nowNanos);
    }
    if (prefillRanking == null) {
      prefillRanking = new PrefillRanking(cost);
    }
    PrefillRanking rank = prefillRanking.forRequest(promptTokens, elapsedS);
    EngineState picked = fleet.pickPrefill(avoid, nowNanos, rank);
    if (picked != null) {
      priced = true;
      prefillUnserved |= !rank.meets(picked);
    }
    return picked;
  }

  /** {@link #prefill} with cache-aware placement: affinity to the longest cached prefix, and the guard. */
  private @Nullable EngineState cacheAwarePrefill(Set<String> avoid, long nowNanos, long promptTokens, double elapsedS) {
    PrefillRanking rank = null;
    if (cost.pricesPrefill(fleet)) {
      if (prefillRanking == null) {
        prefillRanking = new PrefillRanking(cost);
      }
      rank = prefillRanking.forRequest(promptTokens, elapsedS, prompt::usable);
    }
    PrefillAffinity.Choice choice = cache.affinity().place(fleet, avoid, nowNanos, prompt, rank);
    if (choice == null) {
      return null;
    }
    lastPrefill = choice;
    if (rank != null) {
      priced = true;
      prefillUnserved |= !rank.meets(choice.engine());
    }
    return choice.engine();
  }

  /**
   * The engine prefill placement would pick for a request not yet sized, by the same ranking and
   * rules (its estimate standing in for its size), without counting anything against the request:
   * the engine asked to count its prompt.
   */
  @Nullable EngineState countTarget(Set<String> avoid, long nowNanos, long estimatedTokens, double elapsedS) {
    if (!cost.pricesPrefill(fleet)) {
      return fleet.pickPrefill(avoid, nowNanos);
    }
    if (prefillRanking == null) {
      prefillRanking = new PrefillRanking(cost);
    }
    return fleet.pickPrefill(avoid, nowNanos, prefillRanking.forRequest(estimatedTokens, elapsedS));
  }

  /** The decode engine for {@code producerIid}'s handoff; null only when none in placement can decode it. */
  @Nullable EngineState decode(String producerIid, Set<String> avoid, long nowNanos, long kvTokens) {
    if (!cost.pricesDecode(fleet)) {
      return sameEngineIfCached(producerIid, avoid, nowNanos, kvTokens, fleet.pickDecode(producerIid, avoid, nowNanos));
    }
    DecodeRanking rank = decodeRanking(kvTokens);
    EngineState picked = sameEngineIfCached(producerIid, avoid, nowNanos, kvTokens,
        fleet.pickDecode(producerIid, avoid, nowNanos, rank));
    if (picked != null) {
      priced = true;
      decodeUnserved |= !rank.meets(picked);
    }
    return picked;
  }

  /**
   * Cache-aware placement, role {@code both}: the producer itself decodes (no KV transfer; its
   * prefix cache holds the prompt it just computed) when the index confirms it holds the prompt's
   * blocks and it is not much busier than the engine decode placement picked: its projected decode
   * interval within {@code cache.hot_prefix_margin} of that engine's (without profiles: at most
   * {@code (1 + margin) ×} its resident decodes, plus one). Otherwise {@code picked}.
   */
  private @Nullable EngineState sameEngineIfCached(String producerIid, Set<String> avoid, long nowNanos,
      long kvTokens, @Nullable EngineState picked) {
    if (!prompt.active() || picked == null || picked.iid().equals(producerIid)) {
      return picked;
    }
    EngineState producer = fleet.get(producerIid);
    if (producer == null || !producer.role().canDecode() || !producer.inPlacement() || avoid.contains(producerIid)
        || producer.isQuarantined(nowNanos) || !producer.spec().dialect().equals(picked.spec().dialect())) {
      return picked;
    }
    prompt.newRound();
    int whole = prompt.blocks().maxHitBlocks() * prompt.blocks().blockSize();
    if (whole == 0 || prompt.usable(producer) < whole) {
      return picked;
    }
    double margin = cache.config().hotPrefixMargin();
    boolean close;
    if (cost.pricesDecode(fleet)) {
      close = cost.decodeIntervalSeconds(producer, kvTokens) <= (1 + margin) * cost.decodeIntervalSeconds(picked, kvTokens);
    } else {
      close = producer.residentDecode() <= (1 + margin) * picked.residentDecode() + 1;
    }
    return close ? producer : picked;
  }

  /**
   * The engine {@link #decode} would pick now, by the same ranking and rules, counting nothing
   * against the request: a guess made while the prefill runs, before the loads of the answer's time
   * are known.
   */
  @Nullable EngineState likelyDecode(String producerIid, Set<String> avoid, long nowNanos, long kvTokens) {
    if (!cost.pricesDecode(fleet)) {
      return fleet.pickDecode(producerIid, avoid, nowNanos);
    }
    return fleet.pickDecode(producerIid, avoid, nowNanos, decodeRanking(kvTokens));
  }

  private DecodeRanking decodeRanking(long kvTokens) {
    if (decodeRanking == null) {
      decodeRanking = new DecodeRanking(cost);
    }
    return decodeRanking.forRequest(kvTokens);
  }

  /** The phases placed unserved; empty when every priced placement met the SLO; null when none was priced. */
  @Nullable List<String> unserved() {
    if (!priced) {
      return null;
    }
    List<String> phases = new ArrayList<>(2);
    if (prefillUnserved) {
      phases.add("prefill");
    }
    if (decodeUnserved) {
      phases.add("decode");
    }
    return phases;
  }
}
