package narwhal.sim.gpu;

/**
 * A snapshot of a step loop's prefix cache.
 *
 * @param blockSize tokens per block (0: no prefix cache)
 * @param cachedBlocks blocks cached, held or idle
 * @param idleBlocks cached blocks no sequence holds (evictable)
 * @param queriedBlocks full prompt blocks looked up at admission so far ({@code vllm:prefix_cache_queries}, in blocks)
 * @param hitBlocks of those, found cached ({@code vllm:prefix_cache_hits}, in blocks)
 */
public record PrefixCacheStats(int blockSize, int cachedBlocks, int idleBlocks, long queriedBlocks, long hitBlocks) {

  public static final PrefixCacheStats NONE = new PrefixCacheStats(0, 0, 0, 0, 0);
}
