package narwhal.sim.gpu;

import org.jspecify.annotations.Nullable;

/**
 * What a step loop's prefix cache tells the world, as vLLM's {@code KVCacheEvent}s do: blocks
 * stored, blocks removed, everything cleared. Block hashes are the engine's own (64 bits, published
 * as unsigned integers, as vLLM publishes its hashes).
 */
public sealed interface KvCacheEvent {

  /**
   * {@code BlockStored}: consecutive blocks of one sequence became cached.
   *
   * @param blockHashes each block's hash
   * @param parentHash the hash of the first block's parent, or null for a prompt's first block
   * @param tokenIds the blocks' token ids, block after block
   * @param blockSize tokens per block
   */
  record Stored(long[] blockHashes, @Nullable Long parentHash, int[] tokenIds, int blockSize) implements KvCacheEvent {}

  /** {@code BlockRemoved}: evicted blocks. */
  record Removed(long[] blockHashes) implements KvCacheEvent {}

  /** {@code AllBlocksCleared}: the prefix cache was reset. */
  record Cleared() implements KvCacheEvent {}
}
