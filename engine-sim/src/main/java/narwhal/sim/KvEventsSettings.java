package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * vLLM's {@code --kv-events-config} (its {@code KVEventsConfig}): where and how the engine
 * publishes its prefix cache's KV events. Same JSON keys, same defaults: {@code
 * enable_kv_cache_events}, {@code publisher} ({@code zmq} or {@code null}), {@code endpoint}
 * ({@code tcp://*:5557}), {@code replay_endpoint} (none), {@code buffer_steps} (10,000), {@code
 * hwm} (100,000), {@code max_queue_size} (100,000), {@code topic} (""). A port of {@code *} or 0
 * binds an ephemeral port (tests: {@link SimEngine#kvEventsEndpoint()} says which).
 *
 * @param encoding how each event is encoded: vLLM's maps with a {@code type} key (since June 2026)
 *     or its older tagged arrays; not a vLLM key (the simulator's {@code --kv-events-encoding})
 */
public record KvEventsSettings(String endpoint, @Nullable String replayEndpoint, String topic, int bufferSteps,
    int hwm, int maxQueueSize, Encoding encoding) {

  /** The event encodings vLLM has published. */
  public enum Encoding {
    /** {@code {"type": "BlockStored", "block_hashes": ...}}: vLLM since its map encoding (vllm#42892). */
    MAP,
    /** {@code ["BlockStored", block_hashes, ...]}: vLLM before (msgspec {@code array_like=True}). */
    ARRAY;

    static Encoding parse(String text) {
      return switch (text.trim().toLowerCase(Locale.ROOT)) {
        case "map" -> MAP;
        case "array" -> ARRAY;
        default -> throw new IllegalArgumentException("expected map or array, got '" + text + "'");
      };
    }
  }

  public KvEventsSettings {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(encoding, "encoding");
    if (bufferSteps < 1 || hwm < 0 || maxQueueSize < 1) {
      throw new IllegalArgumentException("buffer_steps and max_queue_size must be at least 1, hwm at least 0");
    }
  }

  /** vLLM's defaults, on {@code endpoint}, with a replay socket on {@code replayEndpoint}. */
  public static KvEventsSettings of(String endpoint, @Nullable String replayEndpoint, String topic) {
    return new KvEventsSettings(endpoint, replayEndpoint, topic, 10_000, 100_000, 100_000, Encoding.MAP);
  }

  public KvEventsSettings withEncoding(Encoding value) {
    return new KvEventsSettings(endpoint, replayEndpoint, topic, bufferSteps, hwm, maxQueueSize, value);
  }

  /**
   * Reads vLLM's {@code --kv-events-config} JSON; null when events are not enabled ({@code
   * enable_kv_cache_events} false, or {@code publisher: "null"}). Unknown keys are refused, as
   * vLLM's config refuses them.
   */
  static @Nullable KvEventsSettings parse(JsonNode json, Encoding encoding) {
    if (!json.isObject()) {
      throw new IllegalArgumentException("--kv-events-config must be a JSON object");
    }
    boolean enabled = false;
    String publisher = null;
    String endpoint = "tcp://*:5557";
    String replay = null;
    String topic = "";
    int buffer = 10_000;
    int hwm = 100_000;
    int queue = 100_000;
    for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      JsonNode v = f.getValue();
      switch (f.getKey()) {
        case "enable_kv_cache_events" -> enabled = bool(f.getKey(), v);
        case "publisher" -> publisher = v.isNull() ? null : text(f.getKey(), v);
        case "endpoint" -> endpoint = text(f.getKey(), v);
        case "replay_endpoint" -> replay = v.isNull() ? null : text(f.getKey(), v);
        case "topic" -> topic = text(f.getKey(), v);
        case "buffer_steps" -> buffer = integer(f.getKey(), v);
        case "hwm" -> hwm = integer(f.getKey(), v);
        case "max_queue_size" -> queue = integer(f.getKey(), v);
        default -> throw new IllegalArgumentException("--kv-events-config has no key '" + f.getKey() + "'");
      }
    }
    if (publisher == null) {
      publisher = enabled ? "zmq" : "null";
    }
    if (!publisher.equals("zmq") && !publisher.equals("null")) {
      throw new IllegalArgumentException("--kv-events-config publisher must be zmq or null, got '" + publisher + "'");
    }
    if (!enabled || publisher.equals("null")) {
      return null;
    }
    return new KvEventsSettings(endpoint, replay, topic, buffer, hwm, queue, encoding);
  }

  private static boolean bool(String key, JsonNode v) {
    if (!v.isBoolean()) {
      throw new IllegalArgumentException("--kv-events-config " + key + " must be a boolean");
    }
    return v.booleanValue();
  }

  private static String text(String key, JsonNode v) {
    if (!v.isTextual()) {
      throw new IllegalArgumentException("--kv-events-config " + key + " must be a string");
    }
    return v.textValue();
  }

  private static int integer(String key, JsonNode v) {
    if (!v.canConvertToInt()) {
      throw new IllegalArgumentException("--kv-events-config " + key + " must be an integer");
    }
    return v.intValue();
  }
}
