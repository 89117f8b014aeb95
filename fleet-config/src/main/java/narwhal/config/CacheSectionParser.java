package narwhal.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the {@code cache} section and resolves every engine's event endpoints: an entry under
 * {@code cache.engines.<iid>} overrides the defaults, which are vLLM's ports on the engine's own
 * host. SGLang engines publish no vLLM events and are always indexed approximately.
 */
final class CacheSectionParser {

  /** A ZeroMQ TCP endpoint to connect to: {@code tcp://host:port} (no wildcard: the router connects). */
  private static final Pattern ENDPOINT = Pattern.compile("tcp://(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+):[0-9]{1,5}");

  private CacheSectionParser() {}

  static CacheConfig cache(ConfigObject c, List<EngineSpec> fleet) {
    CacheConfig d = CacheConfig.defaults();
    CacheMode mode = c.choice("mode", Choices.CACHE_MODES, false);
    if (mode == null) {
      mode = d.mode();
    }
    int blockSize = c.integer("block_size", d.blockSize(), 1);
    double margin = c.number("hot_prefix_margin", d.hotPrefixMargin(), NumberRange.NON_NEGATIVE);
    int cap = c.integer("max_blocks_per_engine", d.maxBlocksPerEngine(), 1);
    double ttl = c.number("approximate_ttl_s", d.approximateTtlS(), NumberRange.POSITIVE);
    double replay = c.number("replay_timeout_s", d.replayTimeoutS(), NumberRange.POSITIVE);
    double threshold = c.number("divergence_threshold", d.divergenceThreshold(), NumberRange.UNIT_INTERVAL);
    int window = c.integer("divergence_window", d.divergenceWindow(), 1);
    Map<String, CacheEngineConfig> engines = engines(c.object("engines"), fleet, mode);
    c.finish();
    return new CacheConfig(mode, blockSize, margin, cap, ttl, replay, threshold, window, engines);
  }

  private static Map<String, CacheEngineConfig> engines(ConfigObject o, List<EngineSpec> fleet, CacheMode mode) {
    Map<String, EngineSpec> byIid = new LinkedHashMap<>();
    fleet.forEach(e -> byIid.put(e.iid(), e));
    Map<String, CacheEngineConfig> out = new LinkedHashMap<>();
    Set<String> named = new java.util.HashSet<>();
    for (String iid : o.keys()) {
      ConfigObject entry = o.object(iid);
      EngineSpec engine = byIid.get(iid);
      if (engine == null) {
        o.error(iid, "names no engine of the fleet (engines: " + String.join(", ", byIid.keySet()) + ")");
        continue;
      }
      named.add(iid);
      out.put(iid, entry(entry, engine));
    }
    if (mode == CacheMode.OFF) {
      return out;
    }
    for (EngineSpec engine : fleet) {
      if (!named.contains(engine.iid())) {
        out.put(engine.iid(), CacheEngineConfig.defaultsFor(host(engine), publishes(engine)));
      }
    }
    return out;
  }

  private static CacheEngineConfig entry(ConfigObject entry, EngineSpec engine) {
    CacheEngineConfig d = CacheEngineConfig.defaultsFor(host(engine), publishes(engine));
    boolean events = entry.bool("events", d.events());
    if (events && !publishes(engine)) {
      entry.error("events", "the " + engine.dialect() + " dialect publishes no vLLM KV events; leave it out or"
          + " set false (the engine is indexed approximately)");
      events = false;
    }
    String endpoint = endpoint(entry, "endpoint", d.endpoint());
    String topic = entry.string("topic", d.topic());
    String replay = d.replayEndpoint();
    if (entry.raw("replay_endpoint") != null) {
      replay = entry.isSet("replay_endpoint") ? endpoint(entry, "replay_endpoint", d.replayEndpoint()) : null;
    }
    entry.finish();
    return new CacheEngineConfig(events, endpoint, topic, replay);
  }

  private static String endpoint(ConfigObject entry, String key, String fallback) {
    String value = entry.string(key, fallback);
    if (!ENDPOINT.matcher(value).matches()) {
      entry.error(key, "must be a ZeroMQ endpoint to connect to, tcp://HOST:PORT, got \"" + value + "\"");
      return fallback;
    }
    return value;
  }

  /** vLLM engines publish KV events; other dialects (SGLang) do not speak vLLM's events. */
  private static boolean publishes(EngineSpec engine) {
    return EngineConfig.DIALECT_VLLM.equals(engine.dialect());
  }

  private static String host(EngineSpec engine) {
    String host = engine.url().getHost();
    return host == null ? "127.0.0.1" : host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
  }
}
