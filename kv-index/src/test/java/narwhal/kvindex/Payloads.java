package narwhal.kvindex;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** Event batches for tests, in vLLM's map encoding: one event per batch. */
final class Payloads {

  private Payloads() {}

  /** {@code BlockStored} of consecutive blocks with engine hashes {@code hashes}, parent {@code parent} (null: none). */
  static byte[] stored(long[] hashes, Long parent, int[] tokens, int blockSize) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3).packDouble(1.0).packArrayHeader(1);
      p.packMapHeader(5);
      p.packString("type").packString("BlockStored");
      p.packString("block_hashes").packArrayHeader(hashes.length);
      for (long h : hashes) {
        p.packLong(h);
      }
      p.packString("parent_block_hash");
      if (parent == null) {
        p.packNil();
      } else {
        p.packLong(parent);
      }
      p.packString("token_ids").packArrayHeader(tokens.length);
      for (int t : tokens) {
        p.packInt(t);
      }
      p.packString("block_size").packInt(blockSize);
      p.packInt(0);
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] removed(long... hashes) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3).packDouble(1.0).packArrayHeader(1);
      p.packMapHeader(2);
      p.packString("type").packString("BlockRemoved");
      p.packString("block_hashes").packArrayHeader(hashes.length);
      for (long h : hashes) {
        p.packLong(h);
      }
      p.packInt(0);
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Token ids {@code from, from+1, ...}, {@code n} of them. */
  static int[] tokens(int from, int n) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = from + i;
    }
    return t;
  }
}
