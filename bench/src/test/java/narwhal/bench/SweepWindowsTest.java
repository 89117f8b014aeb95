package narwhal.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How long a closed-loop level ramps and measures. */
class SweepWindowsTest {

  private static final Duration TEN_S = Duration.ofSeconds(10);

  @Test
  void streamsStartTwoMillisecondsApart_upToTheLongestRamp() {
    assertThat(SweepCommand.ramp(1, 10)).isEqualTo(Duration.ofMillis(2));
    assertThat(SweepCommand.ramp(1024, 10)).isEqualTo(Duration.ofMillis(2048));
    assertThat(SweepCommand.ramp(4096, 10)).isEqualTo(Duration.ofMillis(8192));
    assertThat(SweepCommand.ramp(8000, 10)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void aWindowSpansThreeRamps_whenThatIsLongerThanMeasureS() {
    assertThat(SweepCommand.closedLoopWindow(TEN_S, SweepCommand.ramp(256, 10))).isEqualTo(TEN_S);
    assertThat(SweepCommand.closedLoopWindow(TEN_S, SweepCommand.ramp(1024, 10))).isEqualTo(TEN_S);
    assertThat(SweepCommand.closedLoopWindow(TEN_S, SweepCommand.ramp(4096, 10))).isEqualTo(Duration.ofMillis(24_576));
    assertThat(SweepCommand.closedLoopWindow(Duration.ofSeconds(30), SweepCommand.ramp(4096, 10)))
        .isEqualTo(Duration.ofSeconds(30));
  }
}
