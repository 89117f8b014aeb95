package narwhal.config;

import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@code cache} section: cache-aware placement (see docs/configuration.md#cache).
 *
 * @param mode {@code off} (default), {@code approximate} or {@code events}
 * @param blockSize tokens per KV block; must match the engines' {@code --block-size} (vLLM: 16)
 * @param hotPrefixMargin the spill guard: a prompt leaves the engine holding its longest prefix for
 *     the best other engine when that engine's projected time to first token is more than this
 *     fraction above the other's
 * @param maxBlocksPerEngine the most blocks one engine's index keeps; past it, the least recently
 *     stored go first
 * @param approximateTtlS how long the approximate index believes a placed prompt stays cached
 * @param replayTimeoutS how long a replay request may take before the engine's index is dropped
 * @param divergenceThreshold the self-check: the share of cached tokens predictions may miss by,
 *     over {@code divergenceWindow} prefills of one engine, before its index is marked suspect
 * @param divergenceWindow prefills per engine the self-check judges over
 * @param engines per-engine event endpoints, one per fleet engine (explicit or defaulted), by iid
 */
public record CacheConfig(
    CacheMode mode,
    int blockSize,
    double hotPrefixMargin,
    int maxBlocksPerEngine,
    double approximateTtlS,
    double replayTimeoutS,
    double divergenceThreshold,
    int divergenceWindow,
    Map<String, CacheEngineConfig> engines) {

  public static final int DEFAULT_BLOCK_SIZE = 16;

  public CacheConfig {
    Objects.requireNonNull(mode, "mode");
    engines = Map.copyOf(engines);
  }

  /** Cache-aware placement off, every other key at its default. */
  public static CacheConfig defaults() {
    return new CacheConfig(CacheMode.OFF, DEFAULT_BLOCK_SIZE, 0.25, 131_072, 120, 0.5, 0.2, 32, Map.of());
  }

  public boolean enabled() {
    return mode != CacheMode.OFF;
  }

  /** The engine's event settings, or null when the section names none for it (mode off). */
  public @Nullable CacheEngineConfig engine(String iid) {
    return engines.get(iid);
  }

  public CacheConfig withMode(CacheMode value) {
    return new CacheConfig(value, blockSize, hotPrefixMargin, maxBlocksPerEngine, approximateTtlS, replayTimeoutS,
        divergenceThreshold, divergenceWindow, engines);
  }

  public CacheConfig withEngines(Map<String, CacheEngineConfig> value) {
    return new CacheConfig(mode, blockSize, hotPrefixMargin, maxBlocksPerEngine, approximateTtlS, replayTimeoutS,
        divergenceThreshold, divergenceWindow, value);
  }

  public CacheConfig withHotPrefixMargin(double value) {
    return new CacheConfig(mode, blockSize, value, maxBlocksPerEngine, approximateTtlS, replayTimeoutS,
        divergenceThreshold, divergenceWindow, engines);
  }

  public CacheConfig withMaxBlocksPerEngine(int value) {
    return new CacheConfig(mode, blockSize, hotPrefixMargin, value, approximateTtlS, replayTimeoutS,
        divergenceThreshold, divergenceWindow, engines);
  }

  public CacheConfig withDivergence(double threshold, int window) {
    return new CacheConfig(mode, blockSize, hotPrefixMargin, maxBlocksPerEngine, approximateTtlS, replayTimeoutS,
        threshold, window, engines);
  }

  public CacheConfig withApproximateTtlS(double value) {
    return new CacheConfig(mode, blockSize, hotPrefixMargin, maxBlocksPerEngine, value, replayTimeoutS,
        divergenceThreshold, divergenceWindow, engines);
  }
}
