package narwhal.kvindex;

/**
 * One event of a vLLM KV event batch, as the index needs it. Block hashes are the engine's, folded
 * to 64 bits (vLLM publishes them as unsigned integers or as bytes).
 */
sealed interface KvEvent {

  /**
   * {@code BlockStored}: the engine cached blocks, chained from {@code parentHash} (none: the first
   * block of a prompt).
   *
   * @param blockHashes the engine's hash of each block stored
   * @param hasParent whether {@code parentHash} is set
   * @param parentHash the engine's hash of the first block's parent
   * @param tokenIds every stored block's token ids, block after block
   * @param blockSize tokens per block
   * @param indexable per block: true when the block's identity is its tokens alone (no LoRA, no
   *     extra keys such as a cache salt or multimodal hashes, the GPU medium, the first KV group);
   *     the router's chain over token ids cannot name any other block
   */
  record BlockStored(long[] blockHashes, boolean hasParent, long parentHash, int[] tokenIds, int blockSize,
      boolean[] indexable) implements KvEvent {}

  /**
   * {@code BlockRemoved}: the engine evicted these blocks.
   *
   * @param gpu the event concerns the GPU cache (vLLM's {@code medium} is {@code GPU} or absent)
   */
  record BlockRemoved(long[] blockHashes, boolean gpu) implements KvEvent {}

  /** {@code AllBlocksCleared}: the engine dropped its whole prefix cache. */
  record AllBlocksCleared() implements KvEvent {}

  /** An event type this router does not know: ignored, as vLLM asks of consumers. */
  record Unknown(String type) implements KvEvent {}
}
