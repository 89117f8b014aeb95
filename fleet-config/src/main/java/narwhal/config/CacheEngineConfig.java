package narwhal.config;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where one engine publishes its KV events ({@code cache.engines.<iid>}), resolved against the
 * engine's URL: defaults are vLLM's own ports on the engine's host.
 *
 * @param events whether the engine publishes KV events; false indexes it approximately (SGLang
 *     engines always are)
 * @param endpoint the ZeroMQ PUB endpoint to subscribe to, e.g. {@code tcp://10.0.0.5:5557}
 * @param topic the topic to subscribe to; "" receives every topic (vLLM's default topic is "")
 * @param replayEndpoint the ZeroMQ ROUTER endpoint that replays missed batches, or null when the
 *     engine has none (a sequence gap then drops the index and rebuilds it from new events)
 */
public record CacheEngineConfig(boolean events, String endpoint, String topic, @Nullable String replayEndpoint) {

  /** vLLM's default KV events port ({@code KVEventsConfig.endpoint}, {@code tcp://*:5557}). */
  public static final int DEFAULT_EVENTS_PORT = 5557;
  /** The replay port vLLM's examples pair with it ({@code tcp://*:5558}). */
  public static final int DEFAULT_REPLAY_PORT = 5558;

  public CacheEngineConfig {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(topic, "topic");
  }

  /** The defaults for an engine on {@code host}: vLLM's ports there, every topic. */
  public static CacheEngineConfig defaultsFor(String host, boolean events) {
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return new CacheEngineConfig(events, "tcp://" + h + ":" + DEFAULT_EVENTS_PORT, "",
        "tcp://" + h + ":" + DEFAULT_REPLAY_PORT);
  }
}
