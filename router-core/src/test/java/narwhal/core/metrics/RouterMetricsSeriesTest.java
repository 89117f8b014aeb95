package narwhal.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import java.util.List;
import narwhal.api.FailureClass;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.SloConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import narwhal.spi.Phase;
import org.junit.jupiter.api.Test;

/** Series that exist before anything happens, and the per-engine series, bounded by the fleet. */
class RouterMetricsSeriesTest {

  private final MetricRegistry registry = new MetricRegistry();
  private final RouterMetrics metrics = new RouterMetrics(registry, SloConfig.of(1.0, 0.1));
  private final Fleet fleet = new Fleet(List.of(EngineSpec.of("p0", "http://10.0.0.1:8100", EngineRole.PREFILL),
      EngineSpec.of("d0", "http://10.0.0.2:8200", EngineRole.DECODE)));
  private long now = 1_000;

  private long count(String family, String... labels) {
    var counter = registry.getCounters().get(SeriesName.of(family, labels));
    assertThat(counter).as(SeriesName.of(family, labels)).isNotNull();
    return counter.getCount();
  }

  @Test
  void everyDocumentedLabelValue_existsAtZeroFromTheStart() {
    metrics.watchFleet(fleet, () -> now);

    for (String iid : List.of("p0", "d0", "none")) {
      for (String reason : LabelValues.FAILED_REASONS) {
        assertThat(count("narwhal_failed_total", "reason", reason, "iid", iid)).isZero();
      }
    }
    LabelValues.REFUSED_CAUSES.forEach(c -> assertThat(count("narwhal_refused_total", "cause", c)).isZero());
    LabelValues.UNSERVED_PHASES.forEach(p -> assertThat(count("narwhal_unserved_total", "phase", p)).isZero());
    LabelValues.TOKENIZE_FALLBACK_CAUSES.forEach(
        c -> assertThat(count("narwhal_tokenize_fallbacks_total", "cause", c)).isZero());
    LabelValues.REJECTED_REASONS.forEach(r -> assertThat(count("narwhal_rejected_total", "reason", r)).isZero());
    LabelValues.EXPIRED_REASONS.forEach(r -> assertThat(count("narwhal_expired_total", "reason", r)).isZero());
    assertThat(count("narwhal_probes_total", "probe", "liveness", "outcome", "failed")).isZero();
    assertThat(count("narwhal_engine_events_total", "event", "engine_ejected", "iid", "d0")).isZero();
    assertThat(count("narwhal_engine_events_total", "event", "wave_hold", "iid", "fleet")).isZero();
    for (FailureClass cls : FailureClass.values()) {
      assertThat(count("narwhal_engine_failures_total", "iid", "p0", "phase", "prefill", "class", cls.wireName()))
          .isZero();
    }
    assertThat(count("narwhal_engine_requests_total", "iid", "d0", "phase", "decode")).isZero();
  }

  @Test
  void failed_namesTheConfiguredEngineWhoseFailureStartedIt_elseNone() {
    metrics.watchFleet(fleet, () -> now);

    metrics.record(RequestOutcome.builder("a", Terminal.FAILED).reason("engine_error").retryChain("d0", false).build());
    metrics.record(RequestOutcome.builder("b", Terminal.FAILED).reason("no_engine").build());
    metrics.record(RequestOutcome.builder("c", Terminal.FAILED).reason("engine_error").retryChain("x9", false).build());

    assertThat(count("narwhal_failed_total", "reason", "engine_error", "iid", "d0")).isEqualTo(1);
    assertThat(count("narwhal_failed_total", "reason", "no_engine", "iid", "none")).isEqualTo(1);
    assertThat(count("narwhal_failed_total", "reason", "engine_error", "iid", "none"))
        .as("an iid not in the fleet is not a new series").isEqualTo(1);
  }

  @Test
  void perEngineCounters_countLegsAndFailures_onlyForConfiguredEngines() {
    metrics.watchFleet(fleet, () -> now);
    EngineState d0 = fleet.engines().stream().filter(e -> e.iid().equals("d0")).findFirst().orElseThrow();

    d0.reserveDecode(0).release();
    d0.reserveDecode(0);
    metrics.engineFailed("d0", Phase.DECODE, FailureClass.STREAM);
    metrics.engineFailed("zz", Phase.DECODE, FailureClass.STREAM);

    assertThat(count("narwhal_engine_requests_total", "iid", "d0", "phase", "decode")).isEqualTo(2);
    assertThat(count("narwhal_engine_failures_total", "iid", "d0", "phase", "decode", "class", "stream")).isEqualTo(1);
    assertThat(registry.getCounters().keySet()).noneMatch(name -> name.contains("zz"));
  }

  @Test
  void quarantined_isOneWhileTheQuarantineLasts() {
    metrics.watchFleet(fleet, () -> now);
    EngineState p0 = fleet.engines().iterator().next();
    var gauge = registry.getGauges().get(SeriesName.of("narwhal_engine_quarantined", "iid", "p0"));

    assertThat(gauge.getValue()).isEqualTo(0);
    p0.quarantineUntil(2_000);
    assertThat(gauge.getValue()).isEqualTo(1);
    now = 2_000;
    assertThat(gauge.getValue()).isEqualTo(0);
  }
}
