package narwhal.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PoissonScheduleTest {

  @Test
  void gaps_havePositiveValuesAndMeanOneOverRate() {
    PoissonSchedule s = new PoissonSchedule(200, 42);
    int n = 200_000;
    double sum = 0;
    double sumSq = 0;
    for (int i = 0; i < n; i++) {
      long g = s.nextGapNanos();
      assertThat(g).isPositive();
      sum += g;
      sumSq += (double) g * g;
    }
    double mean = sum / n;
    double sd = Math.sqrt(sumSq / n - mean * mean);
    // Exponential gaps: mean = standard deviation = 1 / rate = 5 ms.
    assertThat(mean).isCloseTo(5e6, within(5e6 * 0.02));
    assertThat(sd).isCloseTo(5e6, within(5e6 * 0.03));
  }

  @Test
  void sameSeed_sameArrivals() {
    PoissonSchedule a = new PoissonSchedule(50, 7);
    PoissonSchedule b = new PoissonSchedule(50, 7);
    for (int i = 0; i < 100; i++) {
      assertThat(a.nextGapNanos()).isEqualTo(b.nextGapNanos());
    }
  }

  @Test
  void nonPositiveRate_isRejected() {
    assertThatThrownBy(() -> new PoissonSchedule(0, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive");
  }
}
