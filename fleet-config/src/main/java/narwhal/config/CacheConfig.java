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
    return toBuilder().mode(value).build();
  }

  public CacheConfig withBlockSize(int value) {
    return toBuilder().blockSize(value).build();
  }

  public CacheConfig withHotPrefixMargin(double value) {
    return toBuilder().hotPrefixMargin(value).build();
  }

  public CacheConfig withMaxBlocksPerEngine(int value) {
    return toBuilder().maxBlocksPerEngine(value).build();
  }

  public CacheConfig withApproximateTtlS(double value) {
    return toBuilder().approximateTtlS(value).build();
  }

  public CacheConfig withReplayTimeoutS(double value) {
    return toBuilder().replayTimeoutS(value).build();
  }

  public CacheConfig withDivergence(double threshold, int window) {
    return toBuilder().divergenceThreshold(threshold).divergenceWindow(window).build();
  }

  public CacheConfig withEngines(Map<String, CacheEngineConfig> value) {
    return toBuilder().engines(value).build();
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Builds a {@link CacheConfig} by name; start from {@link #defaults()} with {@link #toBuilder()}. */
  public static final class Builder {
    private CacheMode mode;
    private int blockSize;
    private double hotPrefixMargin;
    private int maxBlocksPerEngine;
    private double approximateTtlS;
    private double replayTimeoutS;
    private double divergenceThreshold;
    private int divergenceWindow;
    private Map<String, CacheEngineConfig> engines;

    private Builder(CacheConfig from) {
      mode = from.mode;
      blockSize = from.blockSize;
      hotPrefixMargin = from.hotPrefixMargin;
      maxBlocksPerEngine = from.maxBlocksPerEngine;
      approximateTtlS = from.approximateTtlS;
      replayTimeoutS = from.replayTimeoutS;
      divergenceThreshold = from.divergenceThreshold;
      divergenceWindow = from.divergenceWindow;
      engines = from.engines;
    }

    // Plain setters, one line each: the record's components, documented there.
    public Builder mode(CacheMode v) { mode = v; return this; }
    public Builder blockSize(int v) { blockSize = v; return this; }
    public Builder hotPrefixMargin(double v) { hotPrefixMargin = v; return this; }
    public Builder maxBlocksPerEngine(int v) { maxBlocksPerEngine = v; return this; }
    public Builder approximateTtlS(double v) { approximateTtlS = v; return this; }
    public Builder replayTimeoutS(double v) { replayTimeoutS = v; return this; }
    public Builder divergenceThreshold(double v) { divergenceThreshold = v; return this; }
    public Builder divergenceWindow(int v) { divergenceWindow = v; return this; }
    public Builder engines(Map<String, CacheEngineConfig> v) { engines = v; return this; }

    public CacheConfig build() {
      return new CacheConfig(mode, blockSize, hotPrefixMargin, maxBlocksPerEngine, approximateTtlS, replayTimeoutS,
          divergenceThreshold, divergenceWindow, engines);
    }
  }
}
