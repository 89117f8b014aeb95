package narwhal.kvindex;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.prefix.PromptBlocks;
import org.junit.jupiter.api.Test;

/** The per-engine index's own rules: duplicate copies, the cap, what a hit may cover. */
class EventIndexTest {

  private static final int BS = 4;

  private static KvEvent.BlockStored stored(long[] hashes, Long parent, int firstToken) {
    boolean[] all = new boolean[hashes.length];
    java.util.Arrays.fill(all, true);
    return new KvEvent.BlockStored(hashes, parent != null, parent == null ? 0 : parent,
        Payloads.tokens(firstToken, hashes.length * BS), BS, all);
  }

  private static PromptBlocks prompt(int n) {
    int[] ids = Payloads.tokens(1, n);
    return new PromptBlocks(ChainHash.chain(ids, BS), n, BS);
  }

  @Test
  void aHitNeverCoversTheLastToken() {
    EventIndex index = new EventIndex(BS, 100);
    index.apply(stored(new long[] {1, 2}, null, 1));
    assertThat(index.cachedBlocks(prompt(8))).as("8 tokens: at most 7 cached, so 1 block").isEqualTo(1);
    assertThat(index.cachedBlocks(prompt(9))).isEqualTo(2);
  }

  @Test
  void aBlockStoredTwice_staysUntilBothCopiesAreEvicted() {
    EventIndex index = new EventIndex(BS, 100);
    index.apply(stored(new long[] {1}, null, 1));
    index.apply(stored(new long[] {1}, null, 1));
    index.apply(new KvEvent.BlockRemoved(new long[] {1}, true));
    assertThat(index.cachedBlocks(prompt(5))).isEqualTo(1);
    index.apply(new KvEvent.BlockRemoved(new long[] {1}, true));
    assertThat(index.cachedBlocks(prompt(5))).isZero();
  }

  @Test
  void theCap_dropsTheLeastRecentlyStored() {
    EventIndex index = new EventIndex(BS, 2);
    index.apply(stored(new long[] {1}, null, 1)); // tokens 1..4
    index.apply(stored(new long[] {10}, null, 100));
    index.apply(stored(new long[] {20}, null, 200));
    assertThat(index.size()).isEqualTo(2);
    assertThat(index.evictedForCapacity()).isEqualTo(1);
    assertThat(index.cachedBlocks(prompt(5))).as("the first stored went first").isZero();
  }

  @Test
  void removalsOfOtherMedia_andOfUnknownBlocks_changeNothing() {
    EventIndex index = new EventIndex(BS, 100);
    index.apply(stored(new long[] {1}, null, 1));
    index.apply(new KvEvent.BlockRemoved(new long[] {1}, false));
    index.apply(new KvEvent.BlockRemoved(new long[] {77}, true));
    assertThat(index.cachedBlocks(prompt(5))).isEqualTo(1);
    assertThat(index.unknownRemovals()).isEqualTo(1);
    index.apply(new KvEvent.AllBlocksCleared());
    assertThat(index.size()).isZero();
  }
}
