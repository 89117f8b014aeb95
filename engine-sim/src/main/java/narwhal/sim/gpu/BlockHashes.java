package narwhal.sim.gpu;

import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;

/**
 * The simulated engine's block hash, as vLLM's prefix cache chains it: SHA-256 over the parent
 * block's hash and the block's token ids, the first 8 bytes taken as the block's 64-bit identity
 * (vLLM publishes its hashes as integers). Deliberately not the router's hash: the router must
 * key blocks by its own hash of the token ids, whatever the engine uses.
 */
final class BlockHashes {

  /** The parent of a prompt's first block ({@code NONE_HASH} in vLLM). */
  static final long NONE = 0x5EED_0F_C0FFEE_01L;

  private BlockHashes() {}

  static long next(long parent, int[] tokens, int from, int blockSize) {
    Hasher h = Hashing.sha256().newHasher(8 + 4 * blockSize);
    h.putLong(parent);
    for (int i = from; i < from + blockSize; i++) {
      h.putInt(tokens[i]);
    }
    return h.hash().asLong();
  }
}
