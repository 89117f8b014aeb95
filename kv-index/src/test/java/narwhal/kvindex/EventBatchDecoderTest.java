package narwhal.kvindex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The decoder against byte fixtures written from vLLM's published structures ({@code
 * vllm/distributed/kv_events.py}): the tagged-array encoding of {@code EventBatch}/{@code
 * KVCacheEvent} with msgspec {@code array_like=True} (vLLM up to its 0.2x releases), and the map
 * encoding with a {@code type} key after vllm#42892 (a vLLM 0.26 {@code BlockStored}, field for
 * field as one was captured from a running engine). Each fixture is the msgpack bytes, spelled out.
 */
class EventBatchDecoderTest {

  /** uint64 hash above 2^63, as vLLM publishes them: 15760518052499183552. */
  private static final long H1 = Long.parseUnsignedLong("15760518052499183552");

  /** {@code [1700000000.5, [["BlockStored", [H1, 7], nil, [1..8], 4, nil, "GPU", nil]], 0]}. */
  static final String ARRAY_STORED = "93cb41d954fc402000009198ab426c6f636b53746f72656492cfdab89baa7b5857c007c0980102"
      + "03040506070804c0a3475055c000";
  /** A child block (parent 7), a BlockRemoved of H1, an AllBlocksCleared, in tagged arrays. */
  static final String ARRAY_CHILD_REMOVED_CLEARED = "93cb41d954fc404000009398ab426c6f636b53746f72656491090794090a"
      + "0b0c04c0a3475055c093ac426c6f636b52656d6f76656491cfdab89baa7b5857c0a347505591b0416c6c426c6f636b73436c6561726564"
      + "00";
  /** The oldest shape: {@code [ts, [["BlockStored", [H1], nil, [1..4], 4, nil]]]}, no medium, no rank. */
  static final String ARRAY_OLDEST = "92cb41d954fc402000009196ab426c6f636b53746f72656491cfdab89baa7b5857c0c09401020304"
      + "04c0";
  /** vLLM 0.26's BlockStored map, with extra_keys [nil], group_idx 0, kv_cache_spec_kind. */
  static final String MAP_STORED = "93cb41daa8dbe0359fe7918ba474797065ab426c6f636b53746f726564ac626c6f636b5f68617368"
      + "657391cfdab89baa7b5857c0b1706172656e745f626c6f636b5f68617368c0a9746f6b656e5f69647394ce0002505ccd0368ccc6cd2368"
      + "aa626c6f636b5f73697a6504a76c6f72615f6964c0a66d656469756da3475055a96c6f72615f6e616d65c0aa65787472615f6b657973"
      + "91c0a967726f75705f69647800b26b765f63616368655f737065635f6b696e64ae66756c6c5f617474656e74696f6e00";
  /** A BlockRemoved map, an event type this router does not know, an AllBlocksCleared. */
  static final String MAP_REMOVED_UNKNOWN_CLEARED = "93cb41daa8dbe04000009384a474797065ac426c6f636b52656d6f766564ac"
      + "626c6f636b5f68617368657391cfdab89baa7b5857c0a66d656469756da3475055a967726f75705f6964780082a474797065ac536f6d65"
      + "7468696e674e6577a1780181a474797065b0416c6c426c6f636b73436c656172656400";
  /** Byte-string hashes (sha256), the second block salted (extra_keys ["salt"]). */
  static final String MAP_BYTES_SALTED = "93cb41daa8dbe08000009189a474797065ab426c6f636b53746f726564ac626c6f636b5f68617368657392c4200101010101"
      + "010101010101010101010101010101010101010101010101010101c420020202020202020202020202020202020202020202"
      + "0202020202020202020202b1706172656e745f626c6f636b5f68617368c0a9746f6b656e5f696473980102030405060708aa"
      + "626c6f636b5f73697a6504a76c6f72615f6964c0a66d656469756da3475055a96c6f72615f6e616d65c0aa65787472615f6b"
      + "65797392c091a473616c7400";

  static byte[] bytes(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  @Test
  void taggedArrays_blockStored_withUint64Hashes() throws Exception {
    EventBatch batch = EventBatchDecoder.decode(bytes(ARRAY_STORED));
    assertThat(batch.ts()).isEqualTo(1700000000.5);
    assertThat(batch.dataParallelRank()).isZero();
    KvEvent.BlockStored s = (KvEvent.BlockStored) batch.events().get(0);
    assertThat(s.blockHashes()).containsExactly(H1, 7L);
    assertThat(s.hasParent()).isFalse();
    assertThat(s.tokenIds()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    assertThat(s.blockSize()).isEqualTo(4);
    assertThat(s.indexable()).containsExactly(true, true);
  }

  @Test
  void taggedArrays_childRemovedCleared_andTheOldestShape() throws Exception {
    EventBatch batch = EventBatchDecoder.decode(bytes(ARRAY_CHILD_REMOVED_CLEARED));
    assertThat(batch.events()).hasSize(3);
    KvEvent.BlockStored child = (KvEvent.BlockStored) batch.events().get(0);
    assertThat(child.hasParent()).isTrue();
    assertThat(child.parentHash()).isEqualTo(7L);
    assertThat(((KvEvent.BlockRemoved) batch.events().get(1)).blockHashes()).containsExactly(H1);
    assertThat(batch.events().get(2)).isInstanceOf(KvEvent.AllBlocksCleared.class);

    EventBatch oldest = EventBatchDecoder.decode(bytes(ARRAY_OLDEST));
    assertThat(oldest.dataParallelRank()).isNull();
    assertThat(((KvEvent.BlockStored) oldest.events().get(0)).indexable()).containsExactly(true);
  }

  @Test
  void maps_vllm026BlockStored_readByName() throws Exception {
    KvEvent.BlockStored s = (KvEvent.BlockStored) EventBatchDecoder.decode(bytes(MAP_STORED)).events().get(0);
    assertThat(s.blockHashes()).containsExactly(H1);
    assertThat(s.tokenIds()).containsExactly(151644, 872, 198, 9064);
    assertThat(s.blockSize()).isEqualTo(4);
    assertThat(s.indexable()).containsExactly(true);
  }

  @Test
  void maps_removedAndCleared_unknownTypesIgnored() throws Exception {
    EventBatch batch = EventBatchDecoder.decode(bytes(MAP_REMOVED_UNKNOWN_CLEARED));
    assertThat(batch.events()).hasSize(3);
    assertThat(((KvEvent.BlockRemoved) batch.events().get(0)).gpu()).isTrue();
    assertThat(batch.events().get(1)).isEqualTo(new KvEvent.Unknown("SomethingNew"));
    assertThat(batch.events().get(2)).isInstanceOf(KvEvent.AllBlocksCleared.class);
  }

  @Test
  void byteHashes_fold_andASaltedBlockIsNotIndexable() throws Exception {
    KvEvent.BlockStored s = (KvEvent.BlockStored) EventBatchDecoder.decode(bytes(MAP_BYTES_SALTED)).events().get(0);
    assertThat(s.blockHashes()[0]).isNotEqualTo(s.blockHashes()[1]);
    assertThat(s.indexable()).containsExactly(true, false);
  }

  @Test
  void malformedPayloads_sayWhatIsWrong() {
    // A map event without a type; a token count that does not fill its blocks; a truncated batch;
    // an array claiming a billion elements; trailing bytes.
    assertThatThrownBy(() -> EventBatchDecoder.decode(bytes("92cb3ff000000000000091" + "81a17801")))
        .isInstanceOf(MalformedEventsException.class).hasMessageContaining("no type");
    String shortTokens = ARRAY_STORED.replace("980102030405060708", "97010203040506" + "07");
    assertThatThrownBy(() -> EventBatchDecoder.decode(bytes(shortTokens)))
        .isInstanceOf(MalformedEventsException.class).hasMessageContaining("token ids");
    assertThatThrownBy(() -> EventBatchDecoder.decode(bytes(ARRAY_STORED.substring(0, 40))))
        .isInstanceOf(MalformedEventsException.class);
    assertThatThrownBy(() -> EventBatchDecoder.decode(bytes("92cb3ff0000000000000dd3b9aca00")))
        .isInstanceOf(MalformedEventsException.class).hasMessageContaining("declares");
    assertThatThrownBy(() -> EventBatchDecoder.decode(bytes(ARRAY_STORED + "00")))
        .isInstanceOf(MalformedEventsException.class).hasMessageContaining("trailing");
  }
}
