package narwhal.core.cache;

import java.util.Comparator;
import java.util.Set;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.placement.PrefillRanking;
import narwhal.prefix.IndexTrust;
import org.jspecify.annotations.Nullable;

/**
 * Cache-aware prefill placement with the hot-prefix guard. Two candidates are picked by the fleet's
 * usual rules (avoidance, quarantine, breaker):
 *
 * <ul>
 *   <li>the <b>best</b>: the first by the placement ranking, which already prices each engine's
 *       prefill for the uncached part of the prompt only (with profiles), else least resident work;
 *   <li>the <b>affine</b> engine: the one whose cache holds the longest prefix of the prompt (ties by
 *       the same ranking).
 * </ul>
 *
 * The prompt goes to the affine engine unless the guard says spill: with profiles, when its
 * projected time to first token is more than {@code cache.hot_prefix_margin} above the best's, or
 * it would miss {@code slo.ttft_s} where the best would meet it; without profiles, when it has more
 * than {@code (1 + margin) ×} the best's resident requests, plus one. So a popular system prompt
 * is served from its engine while that engine keeps up, and spills to the next one (which then
 * caches it too) when it does not. Stateless; its methods run on the request's loop.
 */
public final class PrefillAffinity {

  /** One prefill placement: the engine, how the cache decided it, and what the index predicted there. */
  public record Choice(EngineState engine, CacheLabel label, int predictedTokens, int usableTokens) {}

  private final double margin;

  public PrefillAffinity(double margin) {
    this.margin = margin;
  }

  /**
   * Places a prefill; null when no engine in placement can prefill.
   *
   * @param ranking the priced ranking set up for this request (its cached-token function reading
   *     {@code prompt}), or null when placement is not priced
   */
  public @Nullable Choice place(Fleet fleet, Set<String> avoid, long nowNanos, PromptCache prompt,
      @Nullable PrefillRanking ranking) {
    prompt.newRound();
    EngineState best = ranking == null ? fleet.pickPrefill(avoid, nowNanos) : fleet.pickPrefill(avoid, nowNanos, ranking);
    if (best == null) {
      return null;
    }
    if (!prompt.active()) {
      return new Choice(best, CacheLabel.OFF, 0, 0);
    }
    Comparator<EngineState> tie = ranking != null ? ranking
        : Comparator.comparingInt(EngineState::residentWork).thenComparing(EngineState::iid);
    Comparator<EngineState> longestPrefix =
        Comparator.comparingInt((EngineState e) -> -prompt.usable(e)).thenComparing(tie);
    EngineState affine = fleet.pickPrefill(avoid, nowNanos, longestPrefix);
    EngineState chosen = best;
    CacheLabel label;
    if (affine == null || prompt.usable(affine) == 0) {
      label = CacheLabel.MISS;
    } else if (affine == best || !spills(affine, best, ranking)) {
      chosen = affine;
      label = CacheLabel.HIT;
    } else {
      label = prompt.usable(best) >= prompt.usable(affine) ? CacheLabel.HIT : CacheLabel.SPILL;
    }
    if (prompt.trust(chosen) == IndexTrust.APPROXIMATE
        || (affine != null && prompt.trust(affine) == IndexTrust.APPROXIMATE && label != CacheLabel.HIT)) {
      label = CacheLabel.APPROXIMATE;
    }
    return new Choice(chosen, label, prompt.predicted(chosen), prompt.usable(chosen));
  }

  /** The hot-prefix guard: whether the affine engine is too far behind the best to keep the prompt. */
  boolean spills(EngineState affine, EngineState best, @Nullable PrefillRanking ranking) {
    if (ranking == null) {
      return affine.residentWork() > (1 + margin) * best.residentWork() + 1;
    }
    if (ranking.meets(best) && !ranking.meets(affine)) {
      return true;
    }
    double a = ranking.projectedSeconds(affine);
    double b = ranking.projectedSeconds(best);
    return a > (1 + margin) * b;
  }
}
