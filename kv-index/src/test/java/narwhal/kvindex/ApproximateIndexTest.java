package narwhal.kvindex;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import narwhal.prefix.PromptBlocks;
import org.junit.jupiter.api.Test;

/** The approximate index: what a placement teaches it, for how long, within its cap. */
class ApproximateIndexTest {

  private final AtomicLong now = new AtomicLong();

  private static PromptBlocks prompt(int firstToken, int n) {
    int[] ids = Payloads.tokens(firstToken, n);
    return new PromptBlocks(ChainHash.chain(ids, 4), n, 4);
  }

  @Test
  void aPlacedPrompt_isBelievedCachedUntilItsTtl() {
    ApproximateIndex index = new ApproximateIndex(1_000, 100, now::get);
    index.placed(prompt(1, 12));
    assertThat(index.cachedBlocks(prompt(1, 13))).isEqualTo(3);
    now.set(999);
    assertThat(index.cachedBlocks(prompt(1, 13))).isEqualTo(3);
    now.set(1_000);
    assertThat(index.cachedBlocks(prompt(1, 13))).isZero();
    index.sweep();
    assertThat(index.size()).isZero();
  }

  @Test
  void aPlacementAgain_extendsTheTtl_andTheCapDropsTheOldest() {
    ApproximateIndex index = new ApproximateIndex(1_000, 3, now::get);
    index.placed(prompt(1, 8));
    now.set(500);
    index.placed(prompt(1, 8));
    now.set(1_200);
    assertThat(index.cachedBlocks(prompt(1, 9))).isEqualTo(2);
    index.placed(prompt(100, 8)); // 2 more blocks: 4 > 3, the oldest placement goes
    assertThat(index.size()).isLessThanOrEqualTo(3);
  }
}
