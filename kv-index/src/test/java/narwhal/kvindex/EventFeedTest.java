package narwhal.kvindex;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import narwhal.config.CacheEngineConfig;
import narwhal.prefix.PromptBlocks;
import org.junit.jupiter.api.Test;

/**
 * One engine's feed without sockets: frames, sequence numbers, replay, faults. The index is read
 * back as placement reads it: how many leading tokens of a prompt the engine holds.
 */
class EventFeedTest {

  private static final int BS = 4;
  private final EngineEntry entry = new EngineEntry("p0",
      new CacheEngineConfig(true, "tcp://127.0.0.1:1", "kv", "tcp://127.0.0.1:2"),
      new EventIndex(BS, 1000), null, new SelfCheck(0.2, 4));
  /** What the fake replay socket holds: seq → payload. */
  private final Map<Long, byte[]> replayBuffer = new java.util.TreeMap<>();
  private final List<long[]> replayAsks = new ArrayList<>();
  private final EventFeed feed = new EventFeed(entry, BS, (from, upTo) -> {
    replayAsks.add(new long[] {from, upTo});
    List<Replayer.Replayed> out = new ArrayList<>();
    replayBuffer.forEach((seq, payload) -> {
      if (seq >= from && seq <= upTo) {
        out.add(new Replayer.Replayed(seq, payload));
      }
    });
    return out;
  }, System::nanoTime);

  private static List<byte[]> frames(long seq, byte[] payload) {
    return List.of("kv".getBytes(StandardCharsets.UTF_8), ByteBuffer.allocate(8).putLong(seq).array(), payload);
  }

  /** Leading tokens the index says p0 holds of a prompt of token ids 1..n. */
  private int held(int n) {
    int[] ids = Payloads.tokens(1, n);
    return entry.cachedBlocks(new PromptBlocks(ChainHash.chain(ids, BS), n, BS)) * BS;
  }

  @Test
  void storedBlocksChain_andAChildOfAKnownParentExtendsThePrefix() {
    feed.message(frames(0, Payloads.stored(new long[] {100, 101}, null, Payloads.tokens(1, 8), BS)));
    assertThat(held(13)).isEqualTo(8);
    feed.message(frames(1, Payloads.stored(new long[] {102}, 101L, Payloads.tokens(9, 4), BS)));
    assertThat(held(13)).isEqualTo(12);
    feed.message(frames(2, Payloads.removed(101)));
    assertThat(held(13)).as("the chain breaks at the evicted block").isEqualTo(4);
  }

  @Test
  void aBlockWhoseParentWasNeverSeen_isNotGuessed() {
    feed.message(frames(0, Payloads.stored(new long[] {102}, 101L, Payloads.tokens(5, 4), BS)));
    assertThat(entry.events.size()).isZero();
    assertThat(entry.events.orphanBlocks()).isEqualTo(1);
  }

  @Test
  void aGap_isFilledFromTheReplaySocket() {
    feed.message(frames(0, Payloads.stored(new long[] {100}, null, Payloads.tokens(1, 4), BS)));
    replayBuffer.put(1L, Payloads.stored(new long[] {101}, 100L, Payloads.tokens(5, 4), BS));
    feed.message(frames(2, Payloads.stored(new long[] {102}, 101L, Payloads.tokens(9, 4), BS)));
    assertThat(replayAsks).hasSize(1);
    assertThat(replayAsks.get(0)).containsExactly(1, 1);
    assertThat(held(13)).isEqualTo(12);
    assertThat(entry.drops.get(DropReason.GAP).sum()).isZero();
  }

  @Test
  void aGapTheReplayCannotFill_dropsTheIndex_andItRebuildsFromNewEvents() {
    feed.message(frames(0, Payloads.stored(new long[] {100}, null, Payloads.tokens(1, 4), BS)));
    feed.message(frames(5, Payloads.stored(new long[] {200}, null, Payloads.tokens(1, 4), BS)));
    assertThat(entry.drops.get(DropReason.GAP).sum()).isEqualTo(1);
    assertThat(entry.lastDrop).isEqualTo(DropReason.GAP);
    // Dropped, then the message after the gap rebuilt it: block 200 is the prompt's first block again.
    assertThat(entry.events.size()).isEqualTo(1);
    assertThat(held(5)).isEqualTo(4);
  }

  @Test
  void aSequenceGoingBack_isARestartedEngine_whoseIndexStartsOver() {
    feed.message(frames(0, Payloads.stored(new long[] {100, 101}, null, Payloads.tokens(1, 8), BS)));
    feed.message(frames(1, Payloads.stored(new long[] {102}, 101L, Payloads.tokens(9, 4), BS)));
    feed.message(frames(0, Payloads.removed(999)));
    assertThat(entry.drops.get(DropReason.RESTART).sum()).isEqualTo(1);
    assertThat(held(13)).isZero();
  }

  @Test
  void wrongFrameCounts_malformedPayloads_andOtherBlockSizes_dropTheIndex() {
    feed.message(frames(0, Payloads.stored(new long[] {100}, null, Payloads.tokens(1, 4), BS)));
    feed.message(List.of(new byte[] {1}, new byte[] {2}));
    assertThat(entry.drops.get(DropReason.FRAMES).sum()).isEqualTo(1);
    assertThat(held(5)).isZero();

    feed.message(frames(1, Payloads.stored(new long[] {100}, null, Payloads.tokens(1, 4), BS)));
    feed.message(frames(2, new byte[] {(byte) 0xc1, 0x00}));
    assertThat(entry.drops.get(DropReason.MALFORMED).sum()).isEqualTo(1);
    assertThat(held(5)).isZero();

    feed.message(frames(3, Payloads.stored(new long[] {100}, null, Payloads.tokens(1, 16), 16)));
    assertThat(entry.drops.get(DropReason.BLOCK_SIZE).sum()).isEqualTo(1);
  }

  @Test
  void theFirstMessage_catchesUpFromTheReplayBuffer() {
    replayBuffer.put(3L, Payloads.stored(new long[] {100}, null, Payloads.tokens(1, 4), BS));
    replayBuffer.put(4L, Payloads.stored(new long[] {101}, 100L, Payloads.tokens(5, 4), BS));
    feed.message(frames(5, Payloads.stored(new long[] {102}, 101L, Payloads.tokens(9, 4), BS)));
    assertThat(held(13)).isEqualTo(12);
  }

  @Test
  void anotherTopicUnderTheSamePrefix_isIgnored() {
    feed.message(List.of("kv-other".getBytes(StandardCharsets.UTF_8), ByteBuffer.allocate(8).putLong(0).array(),
        Payloads.stored(new long[] {100}, null, Payloads.tokens(1, 4), BS)));
    assertThat(entry.events.size()).isZero();
    assertThat(entry.lastSeq).isEqualTo(-1);
  }
}
