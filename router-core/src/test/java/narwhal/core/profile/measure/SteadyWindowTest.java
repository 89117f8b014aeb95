package narwhal.core.profile.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.core.profile.DecodeSample;
import org.junit.jupiter.api.Test;

/** The steady part of a batch, and the plan's grids. */
class SteadyWindowTest {

  private static long[] stream(long firstMillis, long everyMillis, int tokens) {
    long[] t = new long[tokens];
    for (int i = 0; i < tokens; i++) {
      t[i] = TimeUnit.MILLISECONDS.toNanos(firstMillis + i * everyMillis);
    }
    return t;
  }

  @Test
  void onlyTheStretchWhereEveryStreamGenerates_isRead() {
    // Stream b starts 50 ms late; before that, a ran alone at 5 ms; together both step at 10 ms.
    long[] a = new long[30];
    for (int i = 0; i < 30; i++) {
      a[i] = TimeUnit.MILLISECONDS.toNanos(i < 10 ? i * 5 : 50 + (i - 10) * 10);
    }
    long[] b = stream(50, 10, 16);

    DecodeSample s = SteadyWindow.read(List.of(a, b), new long[] {100, 300});

    assertThat(s).isNotNull();
    assertThat(s.sequences()).isEqualTo(2);
    assertThat(s.intervalSeconds()).isEqualTo(0.010);
    // Counted intervals start after two warm-up steps (b's tokens 2..14 and a's 12..24), so the median
    // step begins at 130 ms: a has 19 tokens then, b 9: 100 + 19 + 300 + 9.
    assertThat(s.residentTokens()).isEqualTo(428);
  }

  @Test
  void streamsThatNeverOverlapLongEnough_giveNoSample() {
    assertThat(SteadyWindow.read(List.of(stream(0, 10, 10), stream(85, 10, 10)), new long[] {1, 1})).isNull();
    assertThat(SteadyWindow.read(List.of(stream(0, 10, 1)), new long[] {1})).isNull();
    assertThat(SteadyWindow.read(List.of(), new long[0])).isNull();
  }

  @Test
  void countAtOrBefore_countsTies() {
    long[] t = {1, 2, 2, 2, 5};
    assertThat(SteadyWindow.countAtOrBefore(t, 0)).isZero();
    assertThat(SteadyWindow.countAtOrBefore(t, 2)).isEqualTo(4);
    assertThat(SteadyWindow.countAtOrBefore(t, 9)).isEqualTo(5);
  }

  @Test
  void plan_coversTheContext_onAGeometricGrid_withTwoPromptLengthsPerBatchSize() {
    ProfilingPlan big = ProfilingPlan.of(32768, Long.MAX_VALUE, 32, 3, 64, TimeUnit.SECONDS.toNanos(60));
    ProfilingPlan small = ProfilingPlan.of(256, Long.MAX_VALUE, 6, 3, 64, TimeUnit.SECONDS.toNanos(60));
    ProfilingPlan capped = ProfilingPlan.of(32768, 2048, 8, 3, 32, TimeUnit.SECONDS.toNanos(60));

    assertThat(big.prefillLengths()).containsExactly(32L, 64L, 128L, 256L, 512L, 1024L, 2048L, 4096L, 8192L, 16384L);
    assertThat(big.decodeSequences()).containsExactly(1, 2, 4, 8, 16, 32);
    assertThat(big.decodePromptLengths()).containsExactly(32L, 2048L);
    assertThat(small.prefillLengths()).hasSize(6).startsWith(8L).endsWith(128L).isSorted();
    assertThat(small.decodeSequences()).containsExactly(1, 2, 4, 6);
    assertThat(small.decodePromptLengths()).containsExactly(24L, 128L);
    assertThat(capped.prefillLengths()).endsWith(2048L);
    assertThat(capped.decodeSequences()).containsExactly(1, 2, 4, 8);
  }
}
