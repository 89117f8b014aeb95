package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import narwhal.config.EngineContract;
import org.junit.jupiter.api.Test;

/** The request's own deadline and the KV handoff bound, in real (short) time. */
class DeadlinesTest {

  private static String body(String directive, boolean stream) {
    return "{\"model\":\"narwhal-sim\",\"prompt\":\"late [[sim:" + directive + "]]\",\"max_tokens\":6,"
        + "\"stream\":" + stream + "}";
  }

  @Test
  void requestDeadline_boundsTheStreamWhenTheReadTimeoutIsOff() {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
        .withEngine(c.engine().withDecodeReadTimeoutS(0))
        .withServing(c.serving().withRequestTimeoutS(0.6)), null)) {
      // Silent after two tokens with no silence bound: only the request deadline can end it.
      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body("silence-after=2,phase=decode", true));
      assertThat(r.status()).isEqualTo(200);
      JsonNode last = json(r.data().get(r.data().size() - 1));
      assertThat(last.path("error").path("code").asInt()).isEqualTo(504);
      assertThat(last.path("error").path("message").asText()).contains("request deadline");

      HttpResponse<String> before = fleet.client.post("/v1/completions",
          body("silence-first=forever,phase=decode", true).replace("late", "early"));
      // The first-token timeout (2.5 s) is longer than the deadline: the deadline answers first.
      assertThat(before.statusCode()).isEqualTo(504);
      assertThat(json(before.body()).path("error").path("type").asText()).isEqualTo("request_expired");
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void expiredHandoff_isNotUsed_and504HandoffExpiredWhenNoAttemptRemains() {
    // A 12 ms lease bounds the handoff at 12 ms; the producer takes 100 ms to answer.
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
        .withEngineContract(EngineContract.builder().kvLeaseDurationS(0.012).build()), null)) {
      HttpResponse<String> r = fleet.client.post("/v1/completions", body("delay-headers=100,phase=prefill", true));
      assertThat(r.statusCode()).isEqualTo(504);
      JsonNode error = json(r.body()).path("error");
      assertThat(error.path("type").asText()).isEqualTo("handoff_expired");
      assertThat(error.path("message").asText()).startsWith("KV handoff expired before decode dispatch");
      assertThat(fleet.engine("d0").received()).isEmpty();
      fleet.assertReservationsReturnToZero();
    }
  }
}
