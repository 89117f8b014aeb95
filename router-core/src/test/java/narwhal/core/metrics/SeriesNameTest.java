package narwhal.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SeriesNameTest {

  @Test
  void of_writesPrometheusStyleLabels_andParseReadsThemBack() {
    String name = SeriesName.of("narwhal_failed_total", "reason", "engine_error", "iid", "we\"ird\\one\n");

    assertThat(name).isEqualTo("narwhal_failed_total{reason=\"engine_error\",iid=\"we\\\"ird\\\\one\\n\"}");
    SeriesName parsed = SeriesName.parse(name);
    assertThat(parsed.family()).isEqualTo("narwhal_failed_total");
    assertThat(parsed.labelNames()).containsExactly("reason", "iid");
    assertThat(parsed.labelValues()).containsExactly("engine_error", "we\"ird\\one\n");
    assertThat(parsed.toString()).isEqualTo(name);
  }

  @Test
  void aBareName_hasNoLabels() {
    SeriesName parsed = SeriesName.parse("narwhal_served_total");

    assertThat(parsed.family()).isEqualTo("narwhal_served_total");
    assertThat(parsed.labelNames()).isEqualTo(List.of());
    assertThat(SeriesName.of("x")).isEqualTo("x");
  }

  @Test
  void valuesWithCommasAndBraces_surviveTheRoundTrip() {
    String name = SeriesName.of("f", "a", "x,y=\"z\"}", "b", "");

    assertThat(SeriesName.parse(name).labelValues()).containsExactly("x,y=\"z\"}", "");
  }
}
