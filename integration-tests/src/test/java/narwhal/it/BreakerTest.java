package narwhal.it;

import static narwhal.testing.Poll.until;
import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import narwhal.sim.FaultPlan;
import narwhal.sim.ReceivedRequest;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine breaker end to end, in real (short) time against simulated engines: holds, probes,
 * ejection and readmission as the journal, placement and the engines themselves see them.
 */
class BreakerTest {

  /** Monitor ticks every 50 ms, readmission every 4 ticks (200 ms), 300 ms first-token bound. */
  private static FleetConfig fastBreaker(FleetConfig c) {
    return c.withController(c.controller().withMonitorIntervalS(0.05))
        .withRecovery(c.recovery().withEjectAfter(3).withReadmitEvery(4).withLivenessEvery(2).withLivenessMisses(2))
        .withEngine(c.engine().withFirstTokenTimeoutS(0.3))
        .withServing(c.serving().withMaxAttempts(2));
  }

  private static String body(String prompt) {
    return "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":4}";
  }

  @Test
  void engineFailingFirstTokens_isHeld_probed_keptOutWhileFailing_andReadmittedOnceFixed(@TempDir Path dir)
      throws Exception {
    Path journal = dir.resolve("journal.jsonl");
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), BreakerTest::fastBreaker,
        journal)) {
      SimEngine d0 = fleet.engine("d0");
      d0.setFaults(FaultPlan.of("silence-first=forever,phase=decode"));

      // Idle placement prefers d0 (ties go to the lowest iid); each attempt there times out and
      // the retry serves the client from d1.
      for (int i = 0; i < 3; i++) {
        assertThat(fleet.client.post("/v1/completions", body("warm " + i)).statusCode()).isEqualTo(200);
      }
      EngineState d0State = fleet.router.router().fleet().get("d0");
      until("d0 leaves placement", () -> d0State.condition() != EngineCondition.ACTIVE);

      fleet.clearReceived();
      for (int i = 0; i < 8; i++) {
        HttpResponse<String> r = fleet.client.post("/v1/completions", body("served " + i));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r.body()).at("/choices/0/text").asText()).isNotEmpty();
      }
      assertThat(clientRequests(d0)).as("no client traffic reaches the held engine").isEmpty();
      assertThat(clientRequests(fleet.engine("d1"))).as("d1 serves every decode").hasSize(8);

      // Probes reach d0 through the router's own engine client and fail while the fault lasts.
      until("d0 is probed", () -> probes(d0) >= 2);
      assertThat(d0State.condition()).isNotEqualTo(EngineCondition.ACTIVE);

      d0.setFaults(FaultPlan.none());
      until("d0 readmitted once its fault clears", () -> d0State.condition() == EngineCondition.ACTIVE);

      fleet.clearReceived();
      for (int i = 0; i < 3; i++) {
        assertThat(fleet.client.post("/v1/completions", body("back " + i)).statusCode()).isEqualTo(200);
      }
      assertThat(clientRequests(d0)).as("d0 receives traffic again").isNotEmpty();
      fleet.assertReservationsReturnToZero();
    }
    List<JsonNode> events = events(journal);
    assertThat(events).extracting(e -> e.path("event").asText())
        .containsSubsequence("engine_held", "probe", "engine_ejected", "readmitted");
    JsonNode held = events.stream().filter(e -> e.path("event").asText().equals("engine_held")).findFirst().orElseThrow();
    assertThat(held.path("iid").asText()).isEqualTo("d0");
    assertThat(held.path("cause").asText()).isEqualTo("stream");
    assertThat(events).filteredOn(e -> e.path("event").asText().equals("probe"))
        .allSatisfy(e -> assertThat(e.path("iid").asText()).isEqualTo("d0"))
        .extracting(e -> e.path("outcome").asText()).contains("failed", "passed");
  }

  @Test
  void killedEngine_isEjectedByLiveness_andReadmittedByHealthChecksOnceBack() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), BreakerTest::fastBreaker,
        null)) {
      EngineState d1 = fleet.router.router().fleet().get("d1");
      SimEngine engine = fleet.engine("d1");
      int port = engine.port();
      engine.close();
      until("d1 ejected after it is killed", () -> d1.condition() == EngineCondition.EJECTED);
      assertThat(d1.conditionCause()).isIn("liveness", "connection");

      for (int i = 0; i < 4; i++) {
        assertThat(fleet.client.post("/v1/completions", body("while d1 is out " + i)).statusCode()).isEqualTo(200);
      }
      narwhal.testing.Poll.pause(300);
      assertThat(d1.condition()).as("health checks keep a dead engine out").isEqualTo(EngineCondition.EJECTED);

      try (SimEngine restarted = SimEngine.start(engine.options().toBuilder().port(port).build())) {
        until("d1 readmitted by a health check once back", () -> d1.condition() == EngineCondition.ACTIVE);
        // Overlapping slow requests spread over both decode engines by resident work.
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          calls.add(fleet.client.postAsync("/v1/completions", body("after " + i + " [[sim:delay-headers=100,phase=decode]]")));
        }
        for (CompletableFuture<HttpResponse<String>> call : calls) {
          assertThat(call.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(clientRequests(restarted)).as("the restarted d1 serves traffic again").isNotEmpty();
        fleet.assertReservationsReturnToZero();
      }
    }
  }

  private static List<ReceivedRequest> clientRequests(SimEngine engine) {
    return engine.received().stream()
        .filter(r -> r.path().startsWith("/v1/"))
        .filter(r -> r.body() != null && !r.body().path("prompt").asText().startsWith("narwhal probe"))
        .toList();
  }

  private static long probes(SimEngine engine) {
    return engine.received().stream()
        .filter(r -> r.body() != null && r.body().path("prompt").asText().startsWith("narwhal probe"))
        .count();
  }

  private static List<JsonNode> events(Path journal) {
    try {
      return Files.readAllLines(journal).stream().map(RouterClient::json)
          .filter(row -> row.path("kind").asText().equals("event")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

}
