package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import narwhal.sim.FaultPlan;
import org.junit.jupiter.api.Test;

/** Fresh attempts before output, exclusions, the shared budget and quarantine, over real HTTP. */
class RetriesAndQuarantineTest {

  private static final String REQUEST =
      "{\"model\":\"narwhal-sim\",\"prompt\":\"retry me\",\"max_tokens\":4,\"stream\":true}";

  @Test
  void transientPrefillFailure_retriesOnAnotherProducer() {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(),
        c -> c.withServing(c.serving().withMaxAttempts(2).withRetryBackoff(0.001, 0.01)), null)) {
      fleet.engine("p0").setFaults(FaultPlan.of("status=503"));

      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", REQUEST);

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.endsWithDone()).isTrue();
      assertThat(fleet.engine("p0").received()).hasSize(1);
      assertThat(fleet.engine("p1").received()).hasSize(1);
      // Fresh backend ids per attempt.
      assertThat(fleet.engine("p1").received().get(0).header("x-request-id"))
          .isNotEqualTo(fleet.engine("p0").received().get(0).header("x-request-id"));
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void decodeFailureBeforeOutput_retriesWithNewProducerAndNewConsumer() {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(),
        c -> c.withServing(c.serving().withMaxAttempts(2).withRetryBackoff(0.001, 0.01)), null)) {
      fleet.engine("d0").setFaults(FaultPlan.of("status=500"));

      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", REQUEST);

      assertThat(r.status()).isEqualTo(200);
      // Attempt 1: p0 -> d0 (fails). Attempt 2 excludes both: p1 -> d1.
      assertThat(fleet.engine("p0").received()).hasSize(1);
      assertThat(fleet.engine("p1").received()).hasSize(1);
      assertThat(fleet.engine("d0").received()).hasSize(1);
      assertThat(fleet.engine("d1").received()).hasSize(1);
      assertThat(fleet.engine("d1").received().get(0).body().path("kv_transfer_params")
          .path("remote_engine_id").asText()).isEqualTo("sim-p1");
    }
  }

  @Test
  void noRetryByDefault_andNothingLeft_is503() {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, null)) {
      fleet.engine("p0").setFaults(FaultPlan.of("status=503"));
      HttpResponse<String> once = fleet.client.post("/v1/completions", REQUEST);
      assertThat(once.statusCode()).isEqualTo(502);
      assertThat(fleet.engine("p0").received()).hasSize(1);
    }
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
        c -> c.withServing(c.serving().withMaxAttempts(3).withRetryBackoff(0.001, 0.01)), null)) {
      fleet.engine("p0").setFaults(FaultPlan.of("status=503"));
      HttpResponse<String> r = fleet.client.post("/v1/completions", REQUEST);
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("retry-after")).contains("1");
      assertThat(RouterClient.json(r.body()).path("error").path("code").asText()).isEqualTo("backend_unavailable");
    }
  }

  @Test
  void quarantine_keepsAFailedEngineOutOfTheNextPlacements() {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(),
        c -> c.withRecovery(c.recovery().withFailureQuarantineS(30)), null)) {
      fleet.engine("p0").setFaults(FaultPlan.of("status=500,count=1"));
      assertThat(fleet.client.post("/v1/completions", REQUEST).statusCode()).isEqualTo(502);

      // p0 would win the tie on iid, but it is quarantined while p1 covers the role.
      for (int i = 0; i < 3; i++) {
        assertThat(fleet.client.post("/v1/completions", REQUEST).statusCode()).isEqualTo(200);
      }
      assertThat(fleet.engine("p0").received()).hasSize(1);
      assertThat(fleet.engine("p1").received()).hasSize(3);
    }
  }
}
