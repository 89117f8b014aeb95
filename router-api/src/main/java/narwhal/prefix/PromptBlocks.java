package narwhal.prefix;

/**
 * One prompt's full blocks of token ids, each identified by the index's own chain hash (over its
 * parent block's hash and its own token ids), computed once per request by {@link
 * PrefixCacheView#blocks} and then looked up on every engine. Opaque to the core. Immutable.
 */
public final class PromptBlocks {

  /** A prompt the index knows nothing of: no tokens, no blocks (cache-aware placement is off). */
  public static final PromptBlocks NONE = new PromptBlocks(new long[0], 0, 1);

  private final long[] hashes;
  private final int tokens;
  private final int blockSize;

  /**
   * @param hashes one chain hash per full block, in prompt order (the array is kept, not copied:
   *     the index that made it hands it over)
   * @param tokens the prompt's length in tokens (its last partial block has no hash)
   * @param blockSize tokens per block
   */
  public PromptBlocks(long[] hashes, int tokens, int blockSize) {
    if (blockSize < 1 || tokens < 0 || (long) hashes.length * blockSize > tokens) {
      throw new IllegalArgumentException("blocks do not fit the prompt: " + hashes.length + " blocks of "
          + blockSize + " in " + tokens + " tokens");
    }
    this.hashes = hashes;
    this.tokens = tokens;
    this.blockSize = blockSize;
  }

  /** Full blocks in the prompt. */
  public int blockCount() {
    return hashes.length;
  }

  /** The chain hash of block {@code i}. */
  public long hash(int i) {
    return hashes[i];
  }

  public int tokens() {
    return tokens;
  }

  public int blockSize() {
    return blockSize;
  }

  /**
   * The most blocks a prefix-cache hit can cover, as vLLM counts one: the last prompt token is
   * always computed (its logits are needed), so a hit stops at {@code tokens - 1} rounded down to
   * whole blocks.
   */
  public int maxHitBlocks() {
    return tokens <= 0 ? 0 : Math.min(hashes.length, (tokens - 1) / blockSize);
  }
}
