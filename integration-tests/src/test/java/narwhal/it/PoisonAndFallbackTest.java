package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import narwhal.api.FailureClass;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import org.junit.jupiter.api.Test;

/**
 * The two hardening scenarios over real sockets against simulated engines: requests that
 * every engine refuses must not take a role out, and with one producer a dead decode engine must
 * not fail a request the other decode engine can serve.
 */
class PoisonAndFallbackTest {

  private static String body(String prompt) {
    return "{\"model\":\"" + RoutedFleet.MODEL + "\",\"prompt\":\"" + prompt + "\",\"max_tokens\":4}";
  }

  private static FleetConfig twoAttempts(FleetConfig c) {
    return c.withServing(c.serving().withMaxAttempts(2).withRetryBackoff(0.001, 0.01))
        .withRecovery(c.recovery().withEjectAfter(3));
  }

  private static JsonNode row(RoutedFleet fleet, HttpResponse<?> r) {
    String rid = r.headers().firstValue("x-request-id").orElseThrow();
    return fleet.journal().awaitRow("rid " + rid, row -> rid.equals(row.path("rid").asText()));
  }

  @Test
  void threeRequestsEveryDecodeEngineRefuses_failAlone_andTheRoleKeepsServing() {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(),
        PoisonAndFallbackTest::twoAttempts, null)) {
      for (int i = 0; i < 3; i++) {
        // The engine closes the connection on receipt, whichever engine it is: the request's fault.
        HttpResponse<String> poisoned = fleet.client.post("/v1/completions", body("[[sim:refuse,phase=decode]] poison " + i));
        assertThat(poisoned.statusCode()).as(poisoned.body()).isEqualTo(502);
        JsonNode row = row(fleet, poisoned);
        assertThat(row.path("poisoned").asBoolean()).as("row %s", row).isTrue();
        assertThat(row.path("first_failed_iid").asText()).isEqualTo("d0");
        assertThat(row.path("attempt_failures").path(1).path("retry_reason").asText()).isEqualTo("poisoned");
      }

      for (String iid : new String[] {"d0", "d1"}) {
        EngineState e = fleet.router.router().fleet().get(iid);
        assertThat(e.condition()).as(iid).isEqualTo(EngineCondition.ACTIVE);
        assertThat(e.streaks().get(FailureClass.CONNECTION)).as(iid + "'s connection streak").isZero();
      }
      for (int i = 0; i < 5; i++) {
        HttpResponse<String> healthy = fleet.client.post("/v1/completions", body("healthy " + i));
        assertThat(healthy.statusCode()).as(healthy.body()).isEqualTo(200);
        assertThat(json(healthy.body()).at("/choices/0/text").asText()).isNotEmpty();
      }
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void oneProducer_deadDecodeEngine_theRetryUsesTheSameProducerAndTheOtherDecodeEngine() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 2, RoutedFleet.fastEngines().build(),
        PoisonAndFallbackTest::twoAttempts, null)) {
      fleet.engine("d0").close();

      HttpResponse<String> r = fleet.client.post("/v1/completions", body("d0 is gone"));

      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode row = row(fleet, r);
      assertThat(row.path("attempts").asInt()).isEqualTo(2);
      assertThat(row.path("prefill_iid").asText()).isEqualTo("p0");
      assertThat(row.path("decode_iid").asText()).isEqualTo("d1");
      assertThat(row.path("first_failed_iid").asText()).isEqualTo("d0");
      assertThat(row.path("attempt_failures").path(0).path("iid").asText()).isEqualTo("d0");
      assertThat(fleet.engine("p0").received()).hasSize(2);
      fleet.assertReservationsReturnToZero();
    }
  }
}
