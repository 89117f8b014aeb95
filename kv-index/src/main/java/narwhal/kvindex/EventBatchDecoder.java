package narwhal.kvindex;

import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Reads the MessagePack payload of one vLLM KV event message ({@code EventBatch}) in either of the
 * encodings vLLM has published:
 *
 * <ul>
 *   <li>events as tagged arrays ({@code ["BlockStored", block_hashes, parent_block_hash, token_ids,
 *       block_size, lora_id, medium, lora_name, extra_keys, group_idx, ...]}), as vLLM did before
 *       its map encoding (msgspec {@code array_like=True});
 *   <li>events as maps with a {@code type} key ({@code {"type": "BlockStored", "block_hashes":
 *       ...}}), vLLM's encoding since June 2026; keys are matched by name, in any order.
 * </ul>
 *
 * The batch itself is {@code [ts, [events...], data_parallel_rank]} (the rank may be absent), and a
 * map {@code {"ts", "events", "data_parallel_rank"}} is read too. Unknown keys, trailing array
 * fields and unknown event types are skipped, so a newer vLLM's additions never break the index.
 * Anything else (a wrong type, a truncated payload, trailing bytes, sizes past the limits below) is
 * a {@link MalformedEventsException} naming what is wrong: the payload comes from the network and is
 * never trusted to be well formed or small. Stateless and thread-safe.
 */
final class EventBatchDecoder {

  /** Events in one batch at most. */
  static final int MAX_EVENTS = 65_536;
  /** Blocks in one event at most. */
  static final int MAX_BLOCKS = 65_536;
  /** Token ids in one event at most. */
  static final int MAX_TOKENS = 1 << 21;
  /** Bytes of one string or byte-string block hash at most. */
  static final int MAX_BYTES = 4096;
  /** Nesting depth of a skipped value at most (extra keys, unknown fields). */
  static final int MAX_DEPTH = 32;

  private EventBatchDecoder() {}

  static EventBatch decode(byte[] payload) throws MalformedEventsException {
    try (MessageUnpacker in = MessagePack.newDefaultUnpacker(payload)) {
      Reader r = new Reader(in, payload.length);
      EventBatch batch = r.batch();
      if (in.hasNext()) {
        throw new MalformedEventsException("trailing bytes after the event batch");
      }
      return batch;
    } catch (IOException | RuntimeException e) {
      // msgpack-core reports truncation and bad formats as exceptions of its own
      throw new MalformedEventsException("not a MessagePack event batch: " + e.getMessage());
    }
  }

  /** One payload's reading, with the byte budget every declared size is checked against. */
  private static final class Reader {
    private final MessageUnpacker in;
    private final long size;

    Reader(MessageUnpacker in, long size) {
      this.in = in;
      this.size = size;
    }

    EventBatch batch() throws IOException, MalformedEventsException {
      ValueType type = next();
      if (type == ValueType.ARRAY) {
        int n = arrayHeader(3 + 64, "the event batch");
        if (n < 2) {
          throw new MalformedEventsException("the event batch has " + n + " fields, not [ts, events, rank]");
        }
        double ts = number("ts");
        List<KvEvent> events = events();
        Long rank = n >= 3 ? optionalLong("data_parallel_rank") : null;
        skipRest(n - 3);
        return new EventBatch(ts, events, rank);
      }
      if (type == ValueType.MAP) {
        int n = mapHeader("the event batch");
        Double ts = null;
        List<KvEvent> events = null;
        Long rank = null;
        for (int i = 0; i < n; i++) {
          String key = key();
          switch (key) {
            case "ts" -> ts = number("ts");
            case "events" -> events = events();
            case "data_parallel_rank" -> rank = optionalLong("data_parallel_rank");
            default -> skip(0);
          }
        }
        if (ts == null || events == null) {
          throw new MalformedEventsException("the event batch map lacks ts or events");
        }
        return new EventBatch(ts, events, rank);
      }
      throw new MalformedEventsException("the event batch is a " + type + ", not an array");
    }

    private List<KvEvent> events() throws IOException, MalformedEventsException {
      if (next() != ValueType.ARRAY) {
        throw new MalformedEventsException("events is not an array");
      }
      int n = arrayHeader(MAX_EVENTS, "events");
      List<KvEvent> events = new ArrayList<>(Math.min(n, 1024));
      for (int i = 0; i < n; i++) {
        ValueType type = next();
        if (type == ValueType.ARRAY) {
          events.add(taggedArray());
        } else if (type == ValueType.MAP) {
          events.add(taggedMap());
        } else {
          throw new MalformedEventsException("event " + i + " is a " + type + ", neither a tagged array nor a map");
        }
      }
      return events;
    }

    private KvEvent taggedArray() throws IOException, MalformedEventsException {
      int n = arrayHeader(1024, "an event");
      if (n < 1 || next() != ValueType.STRING) {
        throw new MalformedEventsException("a tagged-array event does not start with its type name");
      }
      String tag = in.unpackString();
      int left = n - 1;
      switch (tag) {
        case "BlockStored" -> {
          if (left < 4) {
            throw new MalformedEventsException("BlockStored has " + left + " fields, needs at least 4");
          }
          Stored s = new Stored();
          s.blockHashes = hashes("block_hashes");
          s.readParent();
          s.tokenIds = tokens();
          s.blockSize = blockSize();
          left -= 4;
          if (left > 0) {
            s.readLoraId();
            left--;
          }
          if (left > 0) {
            s.readMedium();
            left--;
          }
          if (left > 0) {
            s.readLoraName();
            left--;
          }
          if (left > 0) {
            s.readExtraKeys();
            left--;
          }
          if (left > 0) {
            s.readGroup();
            left--;
          }
          skipRest(left);
          return s.build();
        }
        case "BlockRemoved" -> {
          if (left < 1) {
            throw new MalformedEventsException("BlockRemoved has no block_hashes");
          }
          long[] hashes = hashes("block_hashes");
          left--;
          boolean gpu = true;
          if (left > 0) {
            gpu = gpuMedium();
            left--;
          }
          if (left > 0) {
            gpu &= firstGroup();
            left--;
          }
          skipRest(left);
          return new KvEvent.BlockRemoved(hashes, gpu);
        }
        case "AllBlocksCleared" -> {
          skipRest(left);
          return new KvEvent.AllBlocksCleared();
        }
        default -> {
          skipRest(left);
          return new KvEvent.Unknown(tag);
        }
      }
    }

    private KvEvent taggedMap() throws IOException, MalformedEventsException {
      int n = mapHeader("an event");
      String type = null;
      Stored s = new Stored();
      long[] hashes = null;
      boolean gpu = true;
      boolean group = true;
      for (int i = 0; i < n; i++) {
        String key = key();
        switch (key) {
          case "type" -> {
            if (next() != ValueType.STRING) {
              throw new MalformedEventsException("an event's type is not a string");
            }
            type = in.unpackString();
          }
          case "block_hashes" -> hashes = hashes("block_hashes");
          case "parent_block_hash" -> s.readParent();
          case "token_ids" -> s.tokenIds = tokens();
          case "block_size" -> s.blockSize = blockSize();
          case "lora_id" -> s.readLoraId();
          case "lora_name" -> s.readLoraName();
          case "medium" -> {
            boolean onGpu = gpuMedium();
            gpu = onGpu;
            s.gpu = onGpu;
          }
          case "extra_keys" -> s.readExtraKeys();
          case "group_idx" -> {
            boolean first = firstGroup();
            group = first;
            s.firstGroup = first;
          }
          default -> skip(0);
        }
      }
      if (type == null) {
        throw new MalformedEventsException("a map event has no type");
      }
      switch (type) {
        case "BlockStored" -> {
          if (hashes == null || s.tokenIds == null || s.blockSize <= 0) {
            throw new MalformedEventsException("BlockStored lacks block_hashes, token_ids or block_size");
          }
          s.blockHashes = hashes;
          return s.build();
        }
        case "BlockRemoved" -> {
          if (hashes == null) {
            throw new MalformedEventsException("BlockRemoved lacks block_hashes");
          }
          return new KvEvent.BlockRemoved(hashes, gpu && group);
        }
        case "AllBlocksCleared" -> {
          return new KvEvent.AllBlocksCleared();
        }
        default -> {
          return new KvEvent.Unknown(type);
        }
      }
    }

    /** A BlockStored event's fields as they are read, in either encoding. */
    private final class Stored {
      long @Nullable [] blockHashes;
      boolean hasParent;
      long parentHash;
      int @Nullable [] tokenIds;
      int blockSize;
      boolean plain = true; // no LoRA
      boolean gpu = true;
      boolean firstGroup = true;
      /** Per block: extra keys present (null: none for any block). */
      boolean @Nullable [] extraKeys;

      void readParent() throws IOException, MalformedEventsException {
        if (next() == ValueType.NIL) {
          in.unpackNil();
          hasParent = false;
        } else {
          hasParent = true;
          parentHash = hash("parent_block_hash");
        }
      }

      void readLoraId() throws IOException, MalformedEventsException {
        plain &= isNil();
      }

      void readLoraName() throws IOException, MalformedEventsException {
        plain &= isNil();
      }

      void readMedium() throws IOException, MalformedEventsException {
        gpu = gpuMedium();
      }

      void readGroup() throws IOException, MalformedEventsException {
        firstGroup = firstGroup();
      }

      void readExtraKeys() throws IOException, MalformedEventsException {
        ValueType t = next();
        if (t == ValueType.NIL) {
          in.unpackNil();
          return;
        }
        if (t != ValueType.ARRAY) {
          throw new MalformedEventsException("extra_keys is neither null nor a list");
        }
        int n = arrayHeader(MAX_BLOCKS, "extra_keys");
        extraKeys = new boolean[n];
        for (int i = 0; i < n; i++) {
          extraKeys[i] = !isNil();
        }
      }

      KvEvent.BlockStored build() throws MalformedEventsException {
        long[] hashes = blockHashes;
        int[] tokens = tokenIds;
        if (hashes == null || tokens == null) {
          throw new MalformedEventsException("BlockStored lacks block_hashes or token_ids");
        }
        if ((long) hashes.length * blockSize != tokens.length) {
          throw new MalformedEventsException("BlockStored has " + tokens.length + " token ids for " + hashes.length
              + " blocks of " + blockSize);
        }
        if (extraKeys != null && extraKeys.length != hashes.length) {
          throw new MalformedEventsException("BlockStored has " + extraKeys.length + " extra_keys entries for "
              + hashes.length + " blocks");
        }
        boolean[] indexable = new boolean[hashes.length];
        for (int i = 0; i < hashes.length; i++) {
          indexable[i] = plain && gpu && firstGroup && (extraKeys == null || !extraKeys[i]);
        }
        return new KvEvent.BlockStored(hashes, hasParent, parentHash, tokens, blockSize, indexable);
      }
    }

    private boolean gpuMedium() throws IOException, MalformedEventsException {
      ValueType t = next();
      if (t == ValueType.NIL) {
        in.unpackNil();
        return true;
      }
      if (t != ValueType.STRING) {
        throw new MalformedEventsException("medium is neither null nor a string");
      }
      return "GPU".equals(string("medium"));
    }

    private boolean firstGroup() throws IOException, MalformedEventsException {
      Long group = optionalLong("group_idx");
      return group == null || group == 0;
    }

    private boolean isNil() throws IOException, MalformedEventsException {
      if (next() == ValueType.NIL) {
        in.unpackNil();
        return true;
      }
      skip(0);
      return false;
    }

    private long[] hashes(String what) throws IOException, MalformedEventsException {
      if (next() != ValueType.ARRAY) {
        throw new MalformedEventsException(what + " is not a list");
      }
      int n = arrayHeader(MAX_BLOCKS, what);
      long[] out = new long[n];
      for (int i = 0; i < n; i++) {
        out[i] = hash(what);
      }
      return out;
    }

    /** A block hash folded to 64 bits: an integer's two's-complement bits, or a hash of bytes. */
    private long hash(String what) throws IOException, MalformedEventsException {
      ValueType t = next();
      if (t == ValueType.INTEGER) {
        MessageFormat f = in.getNextFormat();
        if (f == MessageFormat.UINT64) {
          BigInteger big = in.unpackBigInteger();
          return big.longValue();
        }
        return in.unpackLong();
      }
      if (t == ValueType.BINARY || t == ValueType.STRING) {
        int len = t == ValueType.BINARY ? in.unpackBinaryHeader() : in.unpackRawStringHeader();
        if (len < 0 || len > MAX_BYTES || len > remaining()) {
          throw new MalformedEventsException(what + " has a byte hash of " + len + " bytes");
        }
        byte[] bytes = in.readPayload(len);
        long h = 0xCBF29CE484222325L;
        for (byte b : bytes) {
          h = (h ^ (b & 0xFF)) * 0x100000001B3L;
        }
        return ChainHash.mix(h ^ len);
      }
      throw new MalformedEventsException(what + " holds a " + t + ", not an integer or bytes");
    }

    private int[] tokens() throws IOException, MalformedEventsException {
      if (next() != ValueType.ARRAY) {
        throw new MalformedEventsException("token_ids is not a list");
      }
      int n = arrayHeader(MAX_TOKENS, "token_ids");
      int[] out = new int[n];
      for (int i = 0; i < n; i++) {
        if (next() != ValueType.INTEGER) {
          throw new MalformedEventsException("token_ids holds a non-integer");
        }
        long v = in.getNextFormat() == MessageFormat.UINT64 ? -1 : in.unpackLong();
        if (v < 0 || v > Integer.MAX_VALUE) {
          throw new MalformedEventsException("token id out of range");
        }
        out[i] = (int) v;
      }
      return out;
    }

    private int blockSize() throws IOException, MalformedEventsException {
      Long v = optionalLong("block_size");
      if (v == null || v < 1 || v > 1 << 16) {
        throw new MalformedEventsException("block_size is not an integer in 1..65536");
      }
      return v.intValue();
    }

    private double number(String what) throws IOException, MalformedEventsException {
      ValueType t = next();
      if (t == ValueType.FLOAT) {
        return in.unpackDouble();
      }
      if (t == ValueType.INTEGER && in.getNextFormat() != MessageFormat.UINT64) {
        return in.unpackLong();
      }
      throw new MalformedEventsException(what + " is not a number");
    }

    private @Nullable Long optionalLong(String what) throws IOException, MalformedEventsException {
      ValueType t = next();
      if (t == ValueType.NIL) {
        in.unpackNil();
        return null;
      }
      if (t != ValueType.INTEGER || in.getNextFormat() == MessageFormat.UINT64) {
        throw new MalformedEventsException(what + " is not an integer");
      }
      return in.unpackLong();
    }

    private String key() throws IOException, MalformedEventsException {
      if (next() != ValueType.STRING) {
        throw new MalformedEventsException("a map key is not a string");
      }
      return string("a key");
    }

    private String string(String what) throws IOException, MalformedEventsException {
      int len = in.unpackRawStringHeader();
      if (len < 0 || len > MAX_BYTES || len > remaining()) {
        throw new MalformedEventsException(what + " is a string of " + len + " bytes");
      }
      return new String(in.readPayload(len), java.nio.charset.StandardCharsets.UTF_8);
    }

    private int arrayHeader(int max, String what) throws IOException, MalformedEventsException {
      int n = in.unpackArrayHeader();
      // Every element takes at least one byte: a count past what is left is a lie, not a big batch.
      if (n < 0 || n > max || n > remaining()) {
        throw new MalformedEventsException(what + " declares " + n + " elements (at most " + max + ")");
      }
      return n;
    }

    private int mapHeader(String what) throws IOException, MalformedEventsException {
      int n = in.unpackMapHeader();
      if (n < 0 || n > 1024 || 2L * n > remaining()) {
        throw new MalformedEventsException(what + " declares " + n + " keys");
      }
      return n;
    }

    private void skipRest(int n) throws IOException, MalformedEventsException {
      for (int i = 0; i < n; i++) {
        skip(0);
      }
    }

    /** Skips one value, checking the sizes it declares against the bytes left. */
    private void skip(int depth) throws IOException, MalformedEventsException {
      if (depth > MAX_DEPTH) {
        throw new MalformedEventsException("values nested deeper than " + MAX_DEPTH);
      }
      ValueType t = next();
      switch (t) {
        case ARRAY -> {
          int n = arrayHeader(MAX_TOKENS, "a skipped list");
          for (int i = 0; i < n; i++) {
            skip(depth + 1);
          }
        }
        case MAP -> {
          int n = mapHeader("a skipped map");
          for (int i = 0; i < 2 * n; i++) {
            skip(depth + 1);
          }
        }
        default -> in.skipValue();
      }
    }

    private ValueType next() throws IOException, MalformedEventsException {
      if (!in.hasNext()) {
        throw new MalformedEventsException("the payload ends early");
      }
      MessageFormat f = in.getNextFormat();
      if (f == MessageFormat.NEVER_USED) {
        throw new MalformedEventsException("the payload holds the reserved byte 0xc1");
      }
      return f.getValueType();
    }

    private long remaining() {
      return size - in.getTotalReadBytes();
    }
  }
}
