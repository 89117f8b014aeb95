package narwhal.sim.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The step loop with a prefix cache of 4-token blocks, on a manual clock: which tokens a prefill
 * computes, what it reports cached, which blocks are evicted first, and the events it emits.
 */
class PrefixCacheStepLoopTest {

  private static final Offset<Double> EXACT = within(1e-6);
  private static final int BLOCK = 4;
  private static final GpuProfile PROFILE = GpuProfile.builder()
      .prefillBaseMillis(2).prefillMillisPerToken(0.1).prefillMillisPerTokenSquared(0.001)
      .decodeBaseMillis(5).decodeMillisPerResidentToken(0.01).decodeMillisPerSequence(0.5)
      .kvCapacityTokens(100_000).build();

  private final ManualStepScheduler scheduler = new ManualStepScheduler();
  private final List<List<KvCacheEvent>> events = new ArrayList<>();

  private StepLoop loop(GpuProfile profile) {
    return new StepLoop(profile, scheduler, 7, TimeUnit.SECONDS.toNanos(30), BLOCK, events::add);
  }

  /** Prompt ids {@code base .. base+n-1}, then {@code out} output ids. */
  private static int[] ids(int base, int n, int out) {
    int[] ids = new int[n + out];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i < n ? base + i : 90_000 + i;
    }
    return ids;
  }

  private Sequence run(StepLoop loop, int[] ids, int prompt, int out, TokenLog log) {
    Sequence s = loop.submit(SequenceSpec.prefill(prompt, out).withTokenIds(ids), Runnable::run, log);
    scheduler.runToIdle();
    return s;
  }

  /** What the loop's cache holds of {@code ids}: asked on the loop, which the manual clock runs. */
  private int cached(StepLoop loop, int[] ids) {
    var answer = loop.cachedTokens(ids);
    scheduler.runToIdle();
    return answer.getNow(-1);
  }

  private boolean reset(StepLoop loop) {
    var answer = loop.resetPrefixCache();
    scheduler.runToIdle();
    return answer.getNow(false);
  }

  /** The cost of computing prompt tokens [s, e) as the first chunk: base + 0.1·(e−s) + 0.001·(e²−s²). */
  private static double chunk(int s, int e) {
    return 2 + 0.1 * (e - s) + 0.001 * ((double) e * e - (double) s * s);
  }

  @Test
  void aRepeatedPrompt_computesOnlyItsUncachedTail_andReportsTheHit() {
    StepLoop loop = loop(PROFILE);
    TokenLog first = new TokenLog(scheduler);
    Sequence a = run(loop, ids(1, 20, 1), 20, 1, first);
    assertThat(a.cachedTokens()).isZero();
    assertThat(first.first()).isCloseTo(chunk(0, 20), EXACT);

    // The same 20 tokens again: 5 full blocks cached, but a hit stops at 19 tokens rounded down
    // to blocks (vLLM computes the last token): 16 cached, 4 computed.
    double start = scheduler.nowMillis();
    TokenLog second = new TokenLog(scheduler);
    Sequence b = run(loop, ids(1, 20, 1), 20, 1, second);
    assertThat(b.cachedTokens()).isEqualTo(16);
    assertThat(second.first() - start).isCloseTo(chunk(16, 20), EXACT);
    assertThat(loop.prefixStats().hitBlocks()).isEqualTo(4);
  }

  @Test
  void aPromptSharingOnlyAPrefix_hitsThatPrefix_andTheChainStopsAtTheFirstDifference() {
    StepLoop loop = loop(PROFILE);
    run(loop, ids(1, 16, 1), 16, 1, new TokenLog(scheduler));
    int[] other = ids(1, 16, 1);
    other[9] = 7777; // block 2 differs, so blocks 2 and 3 (chained after it) miss
    Sequence s = run(loop, other, 16, 1, new TokenLog(scheduler));
    assertThat(s.cachedTokens()).isEqualTo(8);
    assertThat(cached(loop, ids(1, 16, 0))).isEqualTo(12); // 15 tokens, 3 whole blocks
  }

  @Test
  void storedBlocksAreAnnouncedWithTheirParentAndTokens_evictionsAsRemoved() {
    StepLoop loop = loop(PROFILE.toBuilder().kvCapacityTokens(14).build()); // a 10-token sequence and one idle block more
    run(loop, ids(1, 9, 1), 9, 1, new TokenLog(scheduler));
    List<KvCacheEvent> flat = events.stream().flatMap(List::stream).toList();
    assertThat(flat).hasSize(1);
    KvCacheEvent.Stored stored = (KvCacheEvent.Stored) flat.get(0);
    assertThat(stored.blockHashes()).hasSize(2);
    assertThat(stored.parentHash()).isNull();
    assertThat(stored.tokenIds()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    assertThat(stored.blockSize()).isEqualTo(BLOCK);

    events.clear();
    run(loop, ids(500, 9, 1), 9, 1, new TokenLog(scheduler));
    List<KvCacheEvent> after = events.stream().flatMap(List::stream).toList();
    // The first prompt's tail block is evicted before its first: freed in reverse, as vLLM does.
    KvCacheEvent.Removed removed = (KvCacheEvent.Removed) after.get(0);
    assertThat(removed.blockHashes()).containsExactly(stored.blockHashes()[1]);
    assertThat(cached(loop, ids(1, 9, 0))).isEqualTo(4);
  }

  @Test
  void aDecodeThatPullsItsPrompt_transfersOnlyWhatItLacks_andCachesThePrompt() {
    StepLoop loop = loop(PROFILE);
    run(loop, ids(1, 8, 1), 8, 1, new TokenLog(scheduler)); // this engine holds 2 blocks (8 tokens)
    events.clear();
    long transfer = TimeUnit.MILLISECONDS.toNanos(16); // for the whole 16-token prompt
    TokenLog log = new TokenLog(scheduler);
    double start = scheduler.nowMillis();
    Sequence s = loop.submit(SequenceSpec.pulled(16, 2, transfer).withTokenIds(ids(1, 16, 2)), Runnable::run, log);
    scheduler.runToIdle();
    // Half the prompt was cached here (8 of 16): half the transfer.
    assertThat(log.kvArrivedMillis.get(0) - start).isCloseTo(8, EXACT);
    assertThat(s.cachedTokens()).isEqualTo(16);
    KvCacheEvent.Stored stored = (KvCacheEvent.Stored) events.get(0).get(0);
    assertThat(stored.blockHashes()).hasSize(2); // blocks 2 and 3: the ones the transfer brought
    assertThat(stored.parentHash()).isNotNull();
    assertThat(cached(loop, ids(1, 17, 0))).isEqualTo(16);
  }

  @Test
  void kvAccountingReturnsToZeroHeld_andIdleBlocksCountAsFree() {
    StepLoop loop = loop(PROFILE.toBuilder().kvCapacityTokens(64).build());
    for (int i = 0; i < 10; i++) {
      run(loop, ids(1000 * i, 20, 3), 20, 3, new TokenLog(scheduler));
    }
    StepLoad load = loop.load();
    assertThat(load.kvUsedTokens()).isZero();
    assertThat(load.running()).isZero();
    assertThat(loop.prefixStats().cachedBlocks()).isEqualTo(loop.prefixStats().idleBlocks());
    assertThat(reset(loop)).isTrue();
    assertThat(loop.prefixStats().cachedBlocks()).isZero();
    assertThat(events.get(events.size() - 1)).containsExactly(new KvCacheEvent.Cleared());
  }
}
