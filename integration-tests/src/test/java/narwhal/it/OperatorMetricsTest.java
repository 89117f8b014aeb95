package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import narwhal.server.NarwhalVersion;
import narwhal.sim.FaultPlan;
import org.junit.jupiter.api.Test;

/** /metrics of a served router over a real socket: what is there from the start, and per-engine counts. */
class OperatorMetricsTest {

  private static Map<String, Double> scrape(RoutedFleet fleet) {
    var response = fleet.client.get("/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    Map<String, Double> out = new LinkedHashMap<>();
    for (String line : response.body().split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        int space = line.lastIndexOf(' ');
        out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
      }
    }
    return out;
  }

  @Test
  void scrapeRightAfterStart_hasTheZeroSeries_buildInfo_andJvmSeries() {
    try (RoutedFleet fleet = RoutedFleet.start()) {
      Map<String, Double> m = scrape(fleet);

      assertThat(m).containsEntry("narwhal_failed_total{iid=\"d1\",reason=\"engine_timeout\"}", 0.0)
          .containsEntry("narwhal_failed_total{iid=\"none\",reason=\"no_engine\"}", 0.0)
          .containsEntry("narwhal_rejected_total{reason=\"not_ready\"}", 0.0)
          .containsEntry("narwhal_expired_total{reason=\"handoff\"}", 0.0)
          .containsEntry("narwhal_refused_total{cause=\"queue\"}", 0.0)
          .containsEntry("narwhal_probes_total{outcome=\"failed\",probe=\"inference\"}", 0.0)
          .containsEntry("narwhal_engine_events_total{event=\"engine_ejected\",iid=\"p0\"}", 0.0)
          .containsEntry("narwhal_engine_requests_total{iid=\"p1\",phase=\"prefill\"}", 0.0)
          .containsEntry("narwhal_engine_failures_total{class=\"connection\",iid=\"d0\",phase=\"decode\"}", 0.0)
          .containsEntry("narwhal_engine_quarantined{iid=\"d0\"}", 0.0);
      assertThat(m).containsKey("narwhal_build_info{java=\"" + System.getProperty("java.version")
          + "\",version=\"" + NarwhalVersion.version() + "\"}");
      assertThat(m.get("narwhal_jvm_memory_bytes{area=\"heap\",kind=\"used\"}")).isPositive();
      assertThat(m.get("narwhal_jvm_threads")).isPositive();
      assertThat(m.get("narwhal_process_open_fds")).isPositive();
      assertThat(m.keySet()).anyMatch(k -> k.startsWith("narwhal_jvm_gc_collections{gc="))
          .anyMatch(k -> k.startsWith("narwhal_jvm_threads_state{state=\"runnable\"}"));
    }
  }

  @Test
  void aFailingEngine_movesItsOwnFailureAndRequestCounters_andIsNamedOnTheFailedRequest() {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
        c -> c.withServing(c.serving().withMaxAttempts(1))
            .withRecovery(c.recovery().withEjectAfter(1_000_000).withFailureQuarantineS(60)), null)) {
      fleet.engine("d0").setFaults(FaultPlan.of("status=500"));

      assertThat(fleet.client.post("/v1/completions", "{\"prompt\": \"x\", \"max_tokens\": 3}").statusCode())
          .isEqualTo(502);
      fleet.journal().awaitRequestRows(1);

      Map<String, Double> m = scrape(fleet);
      assertThat(m).containsEntry("narwhal_engine_requests_total{iid=\"p0\",phase=\"prefill\"}", 1.0)
          .containsEntry("narwhal_engine_requests_total{iid=\"d0\",phase=\"decode\"}", 1.0)
          .containsEntry("narwhal_engine_failures_total{class=\"inference_status\",iid=\"d0\",phase=\"decode\"}", 1.0)
          .containsEntry("narwhal_engine_failures_total{class=\"inference_status\",iid=\"p0\",phase=\"prefill\"}", 0.0)
          .containsEntry("narwhal_failed_total{iid=\"d0\",reason=\"engine_error\"}", 1.0);
      // Requests have been relayed through pooled direct buffers, which the allocator keeps.
      assertThat(m.get("narwhal_netty_buffer_memory_bytes{kind=\"direct\"}")).isPositive();
      assertThat(m).containsKey("narwhal_netty_buffer_memory_bytes{kind=\"heap\"}");
    }
  }
}
