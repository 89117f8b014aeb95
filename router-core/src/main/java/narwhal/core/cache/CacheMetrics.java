package narwhal.core.cache;

import com.codahale.metrics.Counter;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import narwhal.core.metrics.RouterMetrics;

/**
 * Cache-aware placement's metrics (docs/cache-aware-placement.md): placements by {@code
 * cache_placement}, and per engine the cached tokens the index predicted and the engine reported
 * for the same prefills, and their ratio. Every series exists from the start for the fleet's
 * engines. The index's own metrics (blocks, events, drops) are registered by the assembly.
 */
public final class CacheMetrics {

  private final Map<CacheLabel, Counter> placements = new EnumMap<>(CacheLabel.class);
  private final Map<String, Counter> predicted = new ConcurrentHashMap<>();
  private final Map<String, Counter> reported = new ConcurrentHashMap<>();

  public CacheMetrics(RouterMetrics metrics, Iterable<String> engines) {
    for (CacheLabel l : CacheLabel.values()) {
      placements.put(l, metrics.counter("narwhal_cache_placements_total",
          "Prefill placements by how the prefix cache decided them: hit, miss, spill, approximate, off.",
          "placement", l.wireName()));
    }
    for (String iid : engines) {
      Counter p = metrics.counter("narwhal_cache_predicted_tokens_total",
          "Cached prompt tokens the index predicted on the engine, over prefills whose answer reported cached tokens.",
          "iid", iid);
      Counter r = metrics.counter("narwhal_cache_reported_tokens_total",
          "Cached prompt tokens the engine reported (usage.prompt_tokens_details.cached_tokens) for the same prefills.",
          "iid", iid);
      predicted.put(iid, p);
      reported.put(iid, r);
      metrics.gauge("narwhal_cache_prediction_ratio",
          "Predicted over reported cached tokens on the engine since start (1.0: the index is exact; NaN before any"
              + " reported).",
          () -> r.getCount() == 0 ? Double.NaN : (double) p.getCount() / r.getCount(), "iid", iid);
    }
  }

  void placed(CacheLabel label) {
    placements.get(label).inc();
  }

  void checked(String iid, long predictedTokens, long reportedTokens) {
    Counter p = predicted.get(iid);
    Counter r = reported.get(iid);
    if (p != null && r != null) {
      p.inc(Math.max(0, predictedTokens));
      r.inc(Math.max(0, reportedTokens));
    }
  }
}
