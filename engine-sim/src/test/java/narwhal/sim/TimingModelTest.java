package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The latency model as pure functions: exact values, no clock. */
class TimingModelTest {

  private static final SimOptions OPTIONS =
      SimOptions.builder()
          .prefillBaseMillis(2)
          .prefillMillisPerToken(0.5)
          .kvTransferMillisPerToken(0.25)
          .interTokenMillis(4)
          .loadFactor(0.5)
          .build();

  @Test
  void firstTokenDelay_isTheBasePlusAPerPromptTokenCost() {
    assertThat(TimingModel.firstTokenDelayNanos(OPTIONS, 0, false)).isEqualTo(2_000_000);
    assertThat(TimingModel.firstTokenDelayNanos(OPTIONS, 10, false)).isEqualTo(7_000_000);
    assertThat(TimingModel.firstTokenDelayNanos(OPTIONS, 100, false)).isEqualTo(52_000_000);
  }

  @Test
  void firstTokenDelay_growsWithPromptLength() {
    long shorter = TimingModel.firstTokenDelayNanos(OPTIONS, 16, false);
    long longer = TimingModel.firstTokenDelayNanos(OPTIONS, 17, false);

    assertThat(longer - shorter).isEqualTo(500_000);
  }

  @Test
  void decodePullingKv_paysTheKvPerTokenCostInsteadOfPrefill() {
    assertThat(TimingModel.firstTokenDelayNanos(OPTIONS, 0, true)).isZero();
    assertThat(TimingModel.firstTokenDelayNanos(OPTIONS, 10, true)).isEqualTo(2_500_000);
    assertThat(TimingModel.firstTokenDelayNanos(OPTIONS, 100, true)).isEqualTo(25_000_000);
  }

  @Test
  void interTokenLatency_growsWithActiveStreamsThroughTheLoadFactor() {
    assertThat(TimingModel.interTokenNanos(OPTIONS, 0)).isEqualTo(4_000_000);
    assertThat(TimingModel.interTokenNanos(OPTIONS, 1)).isEqualTo(6_000_000);
    assertThat(TimingModel.interTokenNanos(OPTIONS, 4)).isEqualTo(12_000_000);
  }

  @Test
  void withoutLoadFactor_interTokenLatencyIgnoresLoad() {
    SimOptions flat = OPTIONS.toBuilder().loadFactor(0).build();

    assertThat(TimingModel.interTokenNanos(flat, 0)).isEqualTo(4_000_000);
    assertThat(TimingModel.interTokenNanos(flat, 1000)).isEqualTo(4_000_000);
  }

  @Test
  void fractionalMillis_roundToTheNearestNanosecond() {
    SimOptions fine = SimOptions.builder().prefillBaseMillis(0.1).prefillMillisPerToken(0.02).build();

    // 0.1 + 0.02 * 10 = 0.30000000000000004 ms in doubles: still exactly 300 us.
    assertThat(TimingModel.firstTokenDelayNanos(fine, 10, false)).isEqualTo(300_000);
    assertThat(TimingModel.millisToNanos(0.0000004)).isZero();
  }

  @Test
  void output_isDeterministicForASeed() {
    TokenSequence first = new TokenSequence(7, "the same prompt");
    TokenSequence second = new TokenSequence(7, "the same prompt");
    StringBuilder a = new StringBuilder();
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 32; i++) {
      a.append(first.next());
      b.append(second.next());
    }

    assertThat(a.toString()).isEqualTo(b.toString()).isNotEmpty();
    assertThat(SimEngine.expectedText(7, "the same prompt", 32)).isEqualTo(a.toString());
    assertThat(SimEngine.expectedText(8, "the same prompt", 32)).isNotEqualTo(a.toString());
    assertThat(SimEngine.expectedText(7, "another prompt", 32)).isNotEqualTo(a.toString());
  }
}
