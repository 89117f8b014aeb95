package narwhal.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class BucketedHistogramTest {

  @Test
  void observations_landInTheFirstBucketWhoseBoundHoldsThem_boundsInclusive() {
    BucketedHistogram h = new BucketedHistogram(0.1, 0.5, 1.0);
    h.observe(0.05);
    h.observe(0.1);
    h.observe(0.3);
    h.observe(1.0);
    h.observe(7.0);
    h.observe(Double.NaN);

    BucketedHistogram.Snapshot s = h.snapshot();
    assertThat(s.counts()).containsExactly(2, 1, 1, 1);
    assertThat(s.count()).isEqualTo(5);
    assertThat(s.cumulative(1)).isEqualTo(3);
    assertThat(s.sum()).isCloseTo(8.45, within(1e-9));
  }

  @Test
  void scaled_multipliesTheBase() {
    BucketedHistogram h = BucketedHistogram.scaled(2.0, 0.5, 1, 10);

    assertThat(h.snapshot().upperBounds()).containsExactly(1.0, 2.0, 20.0);
  }

  @Test
  void bounds_mustIncrease() {
    assertThatThrownBy(() -> new BucketedHistogram(1.0, 1.0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BucketedHistogram()).isInstanceOf(IllegalArgumentException.class);
  }
}
