package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;
import static narwhal.testing.Poll.until;

import java.net.http.HttpResponse;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import org.junit.jupiter.api.Test;

/**
 * {@code /ready} tells a load balancer the truth about a role whose every engine is down, as soon
 * as the router knows it, not only once the breaker's liveness sweeps take the engine out (10 to
 * 20 s with the defaults): the last engine of a role stays in placement by design, so "in
 * placement" alone is not "able to serve".
 */
class ReadinessTest {

  @Test
  void everyDecodeEngineDead_readyAnswers503NamingIt_asSoonAsARequestFails_andRecovers() throws Exception {
    // Liveness sweeps every 2 s that never eject: readiness must not wait for the breaker.
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
        c -> c.withController(c.controller().withMonitorIntervalS(0.05))
            .withRecovery(c.recovery().withLivenessEvery(40).withLivenessMisses(1000)), null)) {
      assertThat(fleet.client.get("/ready").statusCode()).isEqualTo(200);
      EngineState d0 = fleet.router.router().fleet().get("d0");
      narwhal.sim.SimEngine engine = fleet.engine("d0");
      int port = engine.port();
      engine.close();

      HttpResponse<String> failed = fleet.client.post("/v1/completions",
          "{\"model\":\"" + RoutedFleet.MODEL + "\",\"prompt\":\"hello\",\"max_tokens\":4}");
      assertThat(failed.statusCode()).as(failed.body()).isGreaterThanOrEqualTo(500);
      assertThat(d0.condition()).as("last-engine protection keeps d0 in placement").isEqualTo(EngineCondition.ACTIVE);

      until("the request's failure reaches readiness", () -> fleet.client.get("/ready").statusCode() == 503);
      HttpResponse<String> ready = fleet.client.get("/ready");
      assertThat(ready.body()).contains("no decode-capable engine answering").contains("d0 unreachable");

      assertThat(d0.condition()).as("still in placement: readiness did not wait for the breaker")
          .isEqualTo(EngineCondition.ACTIVE);

      try (var restarted = narwhal.sim.SimEngine.start(engine.options().toBuilder().port(port).build())) {
        until("d0 answers a liveness check again and /ready says so",
            () -> fleet.client.get("/ready").statusCode() == 200);
      }
    }
  }
}
