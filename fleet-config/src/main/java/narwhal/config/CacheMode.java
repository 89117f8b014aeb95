package narwhal.config;

/** {@code cache.mode}: whether and how placement knows which engine holds which prompt prefix. */
public enum CacheMode {
  /** No cache-aware placement: no index, no extra tokenize round trip; placement by load and price. */
  OFF("off"),
  /** Every engine's index is learned from the router's own placements, with a time to live. */
  APPROXIMATE("approximate"),
  /**
   * Each engine's index is fed by its vLLM KV events (ZeroMQ); engines that publish none (SGLang,
   * or an entry with {@code events: false}) are indexed approximately.
   */
  EVENTS("events");

  private final String configName;

  CacheMode(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }
}
