package narwhal.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.List;
import narwhal.sim.gpu.KvCacheEvent;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Encodes one step's KV events as vLLM's {@code KVEventBatch} in MessagePack: the batch is {@code
 * [ts, [events...], data_parallel_rank]}; each event is, by {@link KvEventsSettings.Encoding}:
 *
 * <ul>
 *   <li>{@code MAP} (vLLM since its map encoding, vllm#42892): {@code {"type": "BlockStored",
 *       "block_hashes": [...], "parent_block_hash": h|nil, "token_ids": [...], "block_size": 16,
 *       "lora_id": nil, "medium": "GPU", "lora_name": nil, "extra_keys": [nil, ...], "group_idx": 0,
 *       "kv_cache_spec_kind": "full_attention"}}, {@code {"type": "BlockRemoved", "block_hashes":
 *       [...], "medium": "GPU", "group_idx": 0}}, {@code {"type": "AllBlocksCleared"}}, as a vLLM
 *       0.26 engine sends them;
 *   <li>{@code ARRAY} (before): {@code ["BlockStored", block_hashes, parent_block_hash, token_ids,
 *       block_size, lora_id, medium, lora_name]}, {@code ["BlockRemoved", block_hashes, medium]},
 *       {@code ["AllBlocksCleared"]}.
 * </ul>
 *
 * Block hashes are unsigned 64-bit integers, as vLLM publishes them. Stateless.
 */
final class KvEventEncoder {

  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  private KvEventEncoder() {}

  static byte[] encode(double ts, List<KvCacheEvent> events, int dataParallelRank, KvEventsSettings.Encoding encoding) {
    try (MessageBufferPacker out = MessagePack.newDefaultBufferPacker()) {
      out.packArrayHeader(3);
      out.packDouble(ts);
      out.packArrayHeader(events.size());
      for (KvCacheEvent e : events) {
        if (encoding == KvEventsSettings.Encoding.MAP) {
          asMap(out, e);
        } else {
          asArray(out, e);
        }
      }
      out.packInt(dataParallelRank);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void asMap(MessagePacker out, KvCacheEvent e) throws IOException {
    if (e instanceof KvCacheEvent.Stored s) {
      out.packMapHeader(11);
      out.packString("type").packString("BlockStored");
      out.packString("block_hashes");
      hashes(out, s.blockHashes());
      out.packString("parent_block_hash");
      parent(out, s);
      out.packString("token_ids");
      tokens(out, s.tokenIds());
      out.packString("block_size").packInt(s.blockSize());
      out.packString("lora_id").packNil();
      out.packString("medium").packString("GPU");
      out.packString("lora_name").packNil();
      out.packString("extra_keys").packArrayHeader(s.blockHashes().length);
      for (int i = 0; i < s.blockHashes().length; i++) {
        out.packNil();
      }
      out.packString("group_idx").packInt(0);
      out.packString("kv_cache_spec_kind").packString("full_attention");
    } else if (e instanceof KvCacheEvent.Removed r) {
      out.packMapHeader(4);
      out.packString("type").packString("BlockRemoved");
      out.packString("block_hashes");
      hashes(out, r.blockHashes());
      out.packString("medium").packString("GPU");
      out.packString("group_idx").packInt(0);
    } else {
      out.packMapHeader(1);
      out.packString("type").packString("AllBlocksCleared");
    }
  }

  private static void asArray(MessagePacker out, KvCacheEvent e) throws IOException {
    if (e instanceof KvCacheEvent.Stored s) {
      out.packArrayHeader(8);
      out.packString("BlockStored");
      hashes(out, s.blockHashes());
      parent(out, s);
      tokens(out, s.tokenIds());
      out.packInt(s.blockSize());
      out.packNil(); // lora_id
      out.packString("GPU"); // medium
      out.packNil(); // lora_name
    } else if (e instanceof KvCacheEvent.Removed r) {
      out.packArrayHeader(3);
      out.packString("BlockRemoved");
      hashes(out, r.blockHashes());
      out.packString("GPU");
    } else {
      out.packArrayHeader(1);
      out.packString("AllBlocksCleared");
    }
  }

  private static void parent(MessagePacker out, KvCacheEvent.Stored s) throws IOException {
    Long parent = s.parentHash();
    if (parent == null) {
      out.packNil();
    } else {
      unsigned(out, parent);
    }
  }

  private static void hashes(MessagePacker out, long[] hashes) throws IOException {
    out.packArrayHeader(hashes.length);
    for (long h : hashes) {
      unsigned(out, h);
    }
  }

  private static void tokens(MessagePacker out, int[] ids) throws IOException {
    out.packArrayHeader(ids.length);
    for (int id : ids) {
      out.packInt(id);
    }
  }

  /** The 64 bits as an unsigned integer (msgpack uint64 above 2^63). */
  private static void unsigned(MessagePacker out, long v) throws IOException {
    if (v >= 0) {
      out.packLong(v);
    } else {
      out.packBigInteger(BigInteger.valueOf(v).add(TWO_64));
    }
  }
}
