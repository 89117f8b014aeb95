package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import narwhal.config.SloConfig;
import narwhal.api.RouterError;
import narwhal.core.journal.Journal;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.metrics.SeriesName;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import org.junit.jupiter.api.Test;

/** One outcome, written three ways: the journal row, the metrics, and one structured log line. */
class OutcomeRecorderTest {

  private final List<Map<String, Object>> rows = new ArrayList<>();
  private final MetricRegistry registry = new MetricRegistry();
  private final OutcomeRecorder recorder = new OutcomeRecorder("run-1", new Journal() {
    @Override
    public void record(Map<String, Object> row) {
      rows.add(row);
    }

    @Override
    public void close() {}
  }, new RouterMetrics(registry, SloConfig.of(1.0, 0.05)));

  @Test
  void record_writesTheRowWithTheRunId_andCountsTheOutcome() {
    recorder.record(RequestOutcome.builder("r1", Terminal.EXPIRED).reason("queue_timeout")
        .error(RouterError.of(504, "queue_expired", null, "no seat")).build());

    assertThat(rows).singleElement().satisfies(row -> assertThat(row)
        .containsEntry("run", "run-1").containsEntry("rid", "r1").containsEntry("terminal", "expired")
        .containsEntry("reason", "queue_timeout").containsEntry("status", 504)
        .containsEntry("error_type", "queue_expired"));
    assertThat(registry.counter(SeriesName.of("narwhal_expired_total", "reason", "queue_timeout")).getCount())
        .isEqualTo(1);
  }

  @Test
  void logFields_areTheSetScalarsOfTheRow_withTheRequestIdsFirst() {
    RequestOutcome outcome = RequestOutcome.builder("abc", Terminal.FAILED).reason("engine_error")
        .error(RouterError.of(502, "decode", "engine_error", "Upstream request failed"))
        .placement("p0", "d1").attempts(1, 1, List.of(Map.of("iid", "d1"))).build();

    Map<String, Object> fields = OutcomeRecorder.logFields(outcome.journalRow("run-1"));

    assertThat(fields.keySet()).startsWith("run", "rid")
        .doesNotContain("attempt_failures", "kind", "error", "client_rid");
    assertThat(fields).containsEntry("terminal", "failed").containsEntry("reason", "engine_error")
        .containsEntry("status", 502).containsEntry("error_type", "decode").containsEntry("prefill_iid", "p0")
        .containsEntry("crossed", true);
    assertThat(fields.values()).doesNotContainNull();
  }

  @Test
  void theLogLine_keepsTheOperatorsDetail_thatTheClientNeverRead() {
    String told = "prefill engine p0 refused the connection";
    String detailed = told + " (cannot connect to 10.0.0.7:8001: Connection refused)";
    RequestOutcome refused = RequestOutcome.builder("r2", Terminal.FAILED).reason("engine_unreachable")
        .error(RouterError.of(502, "prefill", "engine_unreachable", told))
        .attempts(1, 0, List.of(Map.of("iid", "p0", "message", detailed))).build();
    RequestOutcome other = RequestOutcome.builder("r3", Terminal.FAILED).reason("no_engine")
        .error(RouterError.of(503, "backend_unavailable", "backend_unavailable", "no prefill engine is available"))
        .attempts(1, 0, List.of(Map.of("iid", "p0", "message", detailed))).build();

    assertThat(OutcomeRecorder.operatorText(refused)).isEqualTo(detailed);
    assertThat(refused.journalRow("run-1")).as("the journal's error is what the client read")
        .containsEntry("error", told);
    assertThat(OutcomeRecorder.operatorText(other)).as("another ending says what the client read")
        .isEqualTo("no prefill engine is available");
  }
}
