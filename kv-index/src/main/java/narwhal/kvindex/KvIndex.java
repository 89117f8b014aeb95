package narwhal.kvindex;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import narwhal.config.CacheConfig;
import narwhal.config.CacheEngineConfig;
import narwhal.config.CacheMode;
import narwhal.prefix.IndexTrust;
import narwhal.prefix.PrefixCacheView;
import narwhal.prefix.PromptBlocks;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's prefix-cache index over the whole fleet ({@code cache.mode} {@code events} or
 * {@code approximate}): one {@link EngineEntry} per engine, fed by that engine's KV events on the
 * subscriber thread ({@link EventSubscriber}) or learned from placements ({@link ApproximateIndex}),
 * and checked against what each engine reports ({@link SelfCheck}: a sustained divergence logs one
 * warning naming the engine and marks its index suspect, and placement stops using it until the
 * predictions agree again).
 *
 * <p>Thread-safe: every {@link PrefixCacheView} method is non-blocking and may be called from any
 * event loop. {@link #start} starts the subscriber thread; {@link #close} stops it.
 */
public final class KvIndex implements PrefixCacheView, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KvIndex.class);

  private final CacheConfig config;
  private final Map<String, EngineEntry> engines = new LinkedHashMap<>();
  private final @Nullable EventSubscriber subscriber;

  /**
   * @param config the {@code cache} section (its engines resolved: one entry per fleet engine)
   * @param clock monotonic nanoseconds, for the approximate index's time to live and feed ages
   */
  public KvIndex(CacheConfig config, LongSupplier clock) {
    if (config.mode() == CacheMode.OFF) {
      throw new IllegalArgumentException("cache.mode is off: use PrefixCacheView.off()");
    }
    this.config = config;
    List<EventSubscriber.Subscription> subscriptions = new ArrayList<>();
    long ttl = Math.round(config.approximateTtlS() * 1e9);
    for (Map.Entry<String, CacheEngineConfig> e : config.engines().entrySet()) {
      CacheEngineConfig c = e.getValue();
      boolean fromEvents = config.mode() == CacheMode.EVENTS && c.events();
      EngineEntry entry = new EngineEntry(e.getKey(), c,
          fromEvents ? new EventIndex(config.blockSize(), config.maxBlocksPerEngine()) : null,
          fromEvents ? null : new ApproximateIndex(ttl, config.maxBlocksPerEngine(), clock),
          new SelfCheck(config.divergenceThreshold(), config.divergenceWindow()));
      engines.put(e.getKey(), entry);
      if (fromEvents) {
        subscriptions.add(new EventSubscriber.Subscription(entry, c.endpoint(), c.topic(), c.replayEndpoint()));
      }
    }
    this.subscriber = new EventSubscriber(subscriptions, config.blockSize(),
        Math.round(config.replayTimeoutS() * 1e9), clock, this::sweep);
  }

  /** Starts following the engines' KV events (a thread of its own). */
  public void start() {
    EventSubscriber s = subscriber;
    if (s != null) {
      s.start();
    }
    for (EngineEntry e : engines.values()) {
      log.info("cache-aware placement: engine {} indexed {}", e.iid, e.fromEvents()
          ? "from KV events at " + e.config.endpoint() + (e.config.topic().isEmpty() ? "" : " topic " + e.config.topic())
              + (e.config.replayEndpoint() == null ? " (no replay)" : ", replay " + e.config.replayEndpoint())
          : "approximately, from the router's placements");
    }
  }

  @Override
  public void close() {
    EventSubscriber s = subscriber;
    if (s != null) {
      s.close();
    }
  }

  public CacheConfig config() {
    return config;
  }

  @Override
  public PromptBlocks blocks(int[] tokenIds) {
    return new PromptBlocks(ChainHash.chain(tokenIds, config.blockSize()), tokenIds.length, config.blockSize());
  }

  @Override
  public int cachedTokens(String iid, PromptBlocks prompt) {
    EngineEntry e = engines.get(iid);
    if (e == null || prompt.blockSize() != config.blockSize()) {
      return 0;
    }
    return e.cachedBlocks(prompt) * prompt.blockSize();
  }

  @Override
  public IndexTrust trust(String iid) {
    EngineEntry e = engines.get(iid);
    return e == null ? IndexTrust.UNTRUSTED : e.trust();
  }

  @Override
  public void placed(String iid, PromptBlocks prompt) {
    EngineEntry e = engines.get(iid);
    if (e != null && e.approximate != null && prompt.blockSize() == config.blockSize()) {
      e.approximate.placed(prompt);
    }
  }

  @Override
  public void checked(String iid, long predictedTokens, long reportedTokens) {
    EngineEntry e = engines.get(iid);
    if (e == null) {
      return;
    }
    e.predictions.increment();
    e.predictedTokens.add(Math.max(0, predictedTokens));
    e.reportedTokens.add(Math.max(0, reportedTokens));
    switch (e.check.record(predictedTokens, reportedTokens)) {
      case BECAME_SUSPECT -> log.warn("cache self-check: engine {}'s index is suspect: over its last {} prefills its"
              + " predictions missed {}% of the cached tokens it reported (threshold {}%); placement stops using it"
              + " until they agree again. {}", iid, config.divergenceWindow(),
          Math.round(e.check.divergence() * 100), Math.round(config.divergenceThreshold() * 100), hint(e));
      case RECOVERED -> log.info("cache self-check: engine {}'s index agrees with what it reports again; placement"
          + " uses it", iid);
      default -> { }
    }
  }

  private static String hint(EngineEntry e) {
    if (e.fromEvents()) {
      return "Check that its KV events reach the router (" + e.config.endpoint() + "), that they decode (see"
          + " narwhal_cache_index_drops_total) and that cache.block_size matches the engine's --block-size.";
    }
    return "The approximate index guesses from placements; the engine may evict sooner than"
        + " cache.approximate_ttl_s.";
  }

  /** The engine restarted (a new process generation): its cache is empty now. Any thread. */
  public void engineRestarted(String iid) {
    EngineEntry e = engines.get(iid);
    if (e == null) {
      return;
    }
    if (e.events != null) {
      EventSubscriber s = subscriber;
      if (s != null) {
        s.engineRestarted(iid);
      }
    } else if (e.approximate != null) {
      e.approximate.clear();
      e.dropped(DropReason.ENGINE_RESTART);
    }
  }

  /** The iids indexed, in fleet order. */
  public List<String> engineIds() {
    return List.copyOf(engines.keySet());
  }

  /** A snapshot of one engine's index for metrics; null for an engine it does not know. */
  public @Nullable EngineIndexStats stats(String iid) {
    EngineEntry e = engines.get(iid);
    if (e == null) {
      return null;
    }
    Map<String, Long> drops = new LinkedHashMap<>();
    e.drops.forEach((reason, n) -> drops.put(reason, n.sum()));
    EventIndex ev = e.events;
    return new EngineIndexStats(e.iid, e.fromEvents() ? "events" : "approximate", e.trust(), e.blocks(),
        e.batches.sum(), e.eventsApplied.sum(), drops, e.replays.sum(), e.replayFailures.sum(),
        ev == null ? 0 : ev.orphanBlocks(), ev == null ? 0 : ev.evictedForCapacity(),
        e.predictions.sum(), e.predictedTokens.sum(), e.reportedTokens.sum(), e.check.divergence(),
        e.check.ratio(), e.lastSeq, e.lastDrop);
  }

  /** {@code /narwhal/state}'s {@code cache} section: mode, and per engine its index and self-check. */
  public Map<String, Object> stateDocument(long nowNanos) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("mode", config.mode().configName());
    doc.put("block_size", config.blockSize());
    doc.put("hot_prefix_margin", config.hotPrefixMargin());
    doc.put("max_blocks_per_engine", config.maxBlocksPerEngine());
    Map<String, Object> per = new LinkedHashMap<>();
    for (EngineEntry e : engines.values()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("index", e.fromEvents() ? "events" : "approximate");
      m.put("trust", e.trust().wireName());
      m.put("suspect", e.check.suspect());
      m.put("blocks", e.blocks());
      if (e.fromEvents()) {
        m.put("endpoint", e.config.endpoint());
        m.put("topic", e.config.topic());
        m.put("replay_endpoint", e.config.replayEndpoint());
        m.put("last_seq", e.lastSeq < 0 ? null : e.lastSeq);
        long at = e.lastMessageNanos;
        m.put("last_message_age_s", at == Long.MIN_VALUE ? null : Math.max(0, nowNanos - at) / 1e9);
        m.put("batches", e.batches.sum());
        m.put("events", e.eventsApplied.sum());
        m.put("last_drop", e.lastDrop);
      } else {
        m.put("approximate_ttl_s", config.approximateTtlS());
      }
      Map<String, Object> check = new LinkedHashMap<>();
      check.put("prefills", e.check.checks());
      check.put("predicted_cached_tokens", e.check.totalPredicted());
      check.put("reported_cached_tokens", e.check.totalReported());
      double d = e.check.divergence();
      check.put("divergence", d);
      check.put("threshold", config.divergenceThreshold());
      check.put("window", config.divergenceWindow());
      m.put("self_check", check);
      per.put(e.iid, m);
    }
    doc.put("engines", per);
    return doc;
  }

  private void sweep() {
    for (EngineEntry e : engines.values()) {
      if (e.approximate != null) {
        e.approximate.sweep();
      }
    }
  }
}
