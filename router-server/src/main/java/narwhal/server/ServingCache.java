package narwhal.server;

import java.util.Map;
import narwhal.config.FleetConfig;
import narwhal.core.cache.CacheMetrics;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.request.DisaggregatedRouter;
import narwhal.kvindex.EngineIndexStats;
import narwhal.kvindex.KvIndex;
import narwhal.prefix.IndexTrust;
import org.jspecify.annotations.Nullable;

/**
 * Cache-aware placement as {@code serve} runs it: with {@code cache.mode} {@code events} or {@code
 * approximate}, the {@link KvIndex} (its subscriber thread started), installed in the router with
 * its state section and the metrics of both the placements ({@link CacheMetrics}) and the index.
 * With {@code cache.mode: off}, nothing at all. Closed with the router.
 */
final class ServingCache implements AutoCloseable {

  private final @Nullable KvIndex index;

  private ServingCache(@Nullable KvIndex index) {
    this.index = index;
  }

  static ServingCache start(FleetConfig config, DisaggregatedRouter router, RouterMetrics metrics) {
    if (!config.cache().enabled()) {
      return new ServingCache(null);
    }
    KvIndex index = new KvIndex(config.cache(), System::nanoTime);
    router.cache().use(index);
    router.cache().describeWith(() -> index.stateDocument(System.nanoTime()));
    router.cache().record(new CacheMetrics(metrics, index.engineIds()));
    register(metrics, index);
    index.start();
    return new ServingCache(index);
  }

  /** The index, or null with cache-aware placement off. */
  @Nullable KvIndex index() {
    return index;
  }

  private static void register(RouterMetrics metrics, KvIndex index) {
    for (String iid : index.engineIds()) {
      metrics.gauge("narwhal_cache_index_blocks", "Blocks the router's index believes the engine's prefix cache holds.",
          () -> stat(index, iid, s -> s.blocks()), "iid", iid);
      metrics.gauge("narwhal_cache_index_trusted",
          "1 while placement uses the engine's index (events or approximate, self-check passing), 0 while not.",
          () -> stat(index, iid, s -> s.trust() == IndexTrust.UNTRUSTED ? 0 : 1), "iid", iid);
      metrics.gauge("narwhal_cache_index_divergence",
          "The self-check's share of cached tokens mispredicted on the engine over its window (0: exact).",
          () -> stat(index, iid, s -> s.divergence()), "iid", iid);
      metrics.readingCounter("narwhal_cache_events_total", "KV events from the engine applied to its index.",
          () -> stat(index, iid, s -> s.events()).longValue(), "iid", iid);
      metrics.readingCounter("narwhal_cache_event_batches_total", "KV event messages from the engine applied.",
          () -> stat(index, iid, s -> s.batches()).longValue(), "iid", iid);
      metrics.readingCounter("narwhal_cache_orphan_blocks_total",
          "Stored blocks the index skipped because it never saw their parent (it never guesses).",
          () -> stat(index, iid, s -> s.orphanBlocks()).longValue(), "iid", iid);
      EngineIndexStats first = index.stats(iid);
      if (first != null) {
        for (String reason : first.drops().keySet()) {
          metrics.readingCounter("narwhal_cache_index_drops_total",
              "Times the engine's index was dropped and rebuilt, by reason: frames, malformed, gap, restart, cleared,"
                  + " block_size, engine_restart.",
              () -> {
                EngineIndexStats s = index.stats(iid);
                Long n = s == null ? null : s.drops().get(reason);
                return n == null ? 0 : n;
              }, "iid", iid, "reason", reason);
        }
      }
    }
  }

  private static Number stat(KvIndex index, String iid, java.util.function.Function<EngineIndexStats, Number> read) {
    EngineIndexStats s = index.stats(iid);
    return s == null ? 0 : read.apply(s);
  }

  /** The state document's {@code cache} section, or null when off. */
  @Nullable Map<String, Object> state() {
    return index == null ? null : index.stateDocument(System.nanoTime());
  }

  @Override
  public void close() {
    if (index != null) {
      index.close();
    }
  }
}
