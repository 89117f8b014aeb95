package narwhal.core.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DecodePaceTest {

  private final DecodePace pace = new DecodePace();
  private final DecodePace.StreamTally stream = new DecodePace.StreamTally();

  @Test
  void aStreamsGaps_reachThePaceInBatches_andTheRestAtItsEnd() {
    // 10-ms gaps: a batch spans 160 ms, inside the time bound, so the count decides.
    for (int i = 0; i < DecodePace.StreamTally.BATCH - 1; i++) {
      stream.tokenGap(10_000_000, pace);
    }
    assertThat(pace.drain().gaps()).as("fewer than a batch: still with the stream").isZero();

    stream.tokenGap(10_000_000, pace);
    DecodePace.Sample batch = pace.drain();
    assertThat(batch.gaps()).isEqualTo(DecodePace.StreamTally.BATCH);
    assertThat(batch.meanSeconds()).isEqualTo(0.010);

    stream.tokenGap(10_000_000, pace);
    stream.tokenGap(30_000_000, pace);
    stream.flushTo(pace);
    DecodePace.Sample rest = pace.drain();
    assertThat(rest.gaps()).isEqualTo(2);
    assertThat(rest.totalNanos()).isEqualTo(40_000_000);

    stream.flushTo(pace);
    assertThat(pace.drain().gaps()).as("nothing is handed over twice").isZero();
  }

  @Test
  void aSlowStreamsGaps_reachThePaceOnceTheySpanAQuarterSecond() {
    stream.tokenGap(100_000_000, pace);
    stream.tokenGap(100_000_000, pace);
    assertThat(pace.drain().gaps()).as("200 ms of gaps: still with the stream").isZero();

    stream.tokenGap(100_000_000, pace);
    DecodePace.Sample sample = pace.drain();
    assertThat(sample.gaps()).isEqualTo(3);
    assertThat(sample.totalNanos()).isEqualTo(300_000_000);
  }

  @Test
  void theFirstTokensMissingGap_isNotCounted() {
    stream.tokenGap(-1, pace);
    stream.tokenGap(5_000_000, pace);
    stream.flushTo(pace);
    DecodePace.Sample sample = pace.drain();
    assertThat(sample.gaps()).isEqualTo(1);
    assertThat(sample.totalNanos()).isEqualTo(5_000_000);
  }

  @Test
  void gapsRecordedOneByOne_andInBatches_addUp() {
    pace.tokenGaps(1, 10_000_000);
    pace.tokenGaps(3, 60_000_000);
    DecodePace.Sample sample = pace.drain();
    assertThat(sample.gaps()).isEqualTo(4);
    assertThat(sample.meanSeconds()).isEqualTo(0.0175);
    assertThat(pace.drain().meanSeconds()).as("a drain starts a new sample").isNaN();
  }
}
