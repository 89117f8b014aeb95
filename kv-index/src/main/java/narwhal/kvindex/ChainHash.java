package narwhal.kvindex;

/**
 * The router's own identity for a block of token ids: a 64-bit hash chained over the parent
 * block's hash and the block's tokens. The index keys blocks by it rather than by the engine's
 * block hash, so it is independent of the engine's hash algorithm, its {@code PYTHONHASHSEED} and
 * its version; the same token ids always give the same chain, on any engine and in any process.
 * Stateless.
 */
final class ChainHash {

  /** The parent of a prompt's first block. */
  static final long ROOT = 0x6E61727768616C31L; // "narwhal1"

  private ChainHash() {}

  /** The hash of the block {@code tokens[from, from + blockSize)} whose parent hashes to {@code parent}. */
  static long next(long parent, int[] tokens, int from, int blockSize) {
    long h = mix(parent ^ (0x9E3779B97F4A7C15L * (blockSize + 1L)));
    for (int i = from; i < from + blockSize; i++) {
      h = Long.rotateLeft(h ^ (tokens[i] & 0xFFFFFFFFL) * 0xC2B2AE3D27D4EB4FL, 31) * 0x9E3779B97F4A7C15L;
    }
    return mix(h);
  }

  /** The chain of {@code tokens}' full blocks from the root. */
  static long[] chain(int[] tokens, int blockSize) {
    long[] out = new long[tokens.length / blockSize];
    long parent = ROOT;
    for (int b = 0; b < out.length; b++) {
      parent = next(parent, tokens, b * blockSize, blockSize);
      out[b] = parent;
    }
    return out;
  }

  /** SplitMix64's finalizer: every input bit affects every output bit. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
