package narwhal.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import java.nio.charset.StandardCharsets;
import narwhal.config.SloConfig;
import narwhal.api.RouterError;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import org.junit.jupiter.api.Test;

/** The registry as Prometheus text: types, help, labels, and histograms with cumulative buckets. */
class PrometheusExpositionTest {

  private final MetricRegistry registry = new MetricRegistry();
  private final RouterMetrics metrics = new RouterMetrics(registry, SloConfig.of(2.0, 0.1));

  private String scrape() {
    return new String(new PrometheusExposition(metrics).scrape(), StandardCharsets.UTF_8);
  }

  @Test
  void outcomes_becomeCountersWithTheirLabels() {
    metrics.offered();
    metrics.offered();
    metrics.record(RequestOutcome.builder("a", Terminal.COMPLETED).build());
    metrics.record(RequestOutcome.builder("b", Terminal.FAILED).reason("engine_error")
        .error(RouterError.of(502, "decode", "engine_error", "x")).build());

    String text = scrape();

    assertThat(text).contains("# TYPE narwhal_offered_total counter\n", "narwhal_offered_total 2.0\n",
        "# HELP narwhal_served_total Requests completed", "narwhal_served_total 1.0\n",
        "narwhal_failed_total{iid=\"none\",reason=\"engine_error\"} 1.0\n", "narwhal_invalid_requests_total 0.0\n");
  }

  @Test
  void latencies_becomeHistogramsWithCumulativeBucketsAtSloMultiples() {
    // ttft buckets: 2 s x {0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10}
    metrics.record(RequestOutcome.builder("a", Terminal.COMPLETED).latency(40_000_000L, null, null, null).build());
    metrics.record(RequestOutcome.builder("b", Terminal.COMPLETED).latency(150_000_000L, null, null, null).build());
    metrics.record(RequestOutcome.builder("c", Terminal.COMPLETED).latency(30_000_000_000L, null, null, null).build());

    String text = scrape();

    assertThat(text).contains("# TYPE narwhal_ttft_seconds histogram\n",
        "narwhal_ttft_seconds_bucket{le=\"0.05\"} 1\n",
        "narwhal_ttft_seconds_bucket{le=\"0.1\"} 1\n",
        "narwhal_ttft_seconds_bucket{le=\"0.2\"} 2\n",
        "narwhal_ttft_seconds_bucket{le=\"20.0\"} 2\n",
        "narwhal_ttft_seconds_bucket{le=\"+Inf\"} 3\n",
        "narwhal_ttft_seconds_count 3\n",
        "narwhal_ttft_seconds_sum 30.19\n",
        "narwhal_tpot_seconds_bucket{le=\"0.0025\"} 0\n",
        "narwhal_tpot_seconds_count 0\n");
  }

  @Test
  void gauges_areReadAtScrapeTime_andForeignNamesAreSanitized() {
    int[] value = {3};
    metrics.gauge("narwhal_test_gauge", "A test gauge.", () -> value[0], "iid", "e1");
    registry.counter("some.dotted.counter").inc();
    value[0] = 5;

    String text = scrape();

    assertThat(text).contains("# TYPE narwhal_test_gauge gauge\n", "narwhal_test_gauge{iid=\"e1\"} 5.0\n",
        "some_dotted_counter_total 1.0\n");
  }
}
