package narwhal.core.request;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
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

  PricedPlacement(Fleet fleet, PlacementCost cost) {
    this.fleet = fleet;
    this.cost = cost;
  }

  /**
   * The prefill engine for an attempt; null only when no engine in placement can prefill.
   *
   * @param elapsedS seconds since the request arrived, part of its projected time to first token
   */
  @Nullable EngineState prefill(Set<String> avoid, long nowNanos, long promptTokens, double elapsedS) {
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
      return fleet.pickDecode(producerIid, avoid, nowNanos);
    }
    DecodeRanking rank = decodeRanking(kvTokens);
    EngineState picked = fleet.pickDecode(producerIid, avoid, nowNanos, rank);
    if (picked != null) {
      priced = true;
      decodeUnserved |= !rank.meets(picked);
    }
    return picked;
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
