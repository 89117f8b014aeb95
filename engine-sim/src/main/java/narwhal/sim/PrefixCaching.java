package narwhal.sim;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The engine's prefix cache and what it says about it (gpu timing mode only), as vLLM's {@code
 * --enable-prefix-caching}, {@code --block-size}, {@code --enable-prompt-tokens-details} and
 * {@code --kv-events-config} set them. Off by default in the simulator (vLLM's default is on), so
 * runs and benchmarks that predate it behave as before.
 *
 * @param enabled whether the engine reuses cached prompt blocks and caches what it computes
 * @param blockSize tokens per KV block (vLLM: 16)
 * @param promptTokensDetails report {@code usage.prompt_tokens_details.cached_tokens} when it is
 *     above 0, as vLLM does with {@code --enable-prompt-tokens-details}
 * @param kvEvents where the cache's events are published, or null for none
 */
public record PrefixCaching(boolean enabled, int blockSize, boolean promptTokensDetails,
    @Nullable KvEventsSettings kvEvents) {

  public static final PrefixCaching OFF = new PrefixCaching(false, 16, false, null);

  public PrefixCaching {
    if (blockSize < 1) {
      throw new IllegalArgumentException("blockSize must be at least 1, got " + blockSize);
    }
    if (kvEvents != null && !enabled) {
      throw new IllegalArgumentException("KV events need the prefix cache (--enable-prefix-caching)");
    }
  }

  /** A prefix cache of {@code blockSize}-token blocks, reporting cached tokens, without events. */
  public static PrefixCaching on(int blockSize) {
    return new PrefixCaching(true, blockSize, true, null);
  }

  public PrefixCaching withEvents(@Nullable KvEventsSettings value) {
    return new PrefixCaching(enabled, blockSize, promptTokensDetails, value);
  }

  public PrefixCaching withPromptTokensDetails(boolean value) {
    return new PrefixCaching(enabled, blockSize, value, kvEvents);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PrefixCaching p && p.enabled == enabled && p.blockSize == blockSize
        && p.promptTokensDetails == promptTokensDetails && Objects.equals(p.kvEvents, kvEvents);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, blockSize, promptTokensDetails, kvEvents);
  }
}
