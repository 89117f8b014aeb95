package narwhal.it;

import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import narwhal.sim.FaultPlan;
import narwhal.sim.ReceivedRequest;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

/**
 * Engine verdicts across three replicas over a real etcd: an engine one replica takes out of
 * placement is out of placement on every replica within 200 ms (by watch), the others place
 * nothing there, exactly one replica probes it, and its readmission reaches every replica too.
 */
class ReplicaVerdictsTest {

  /** A fast breaker: monitor ticks every 50 ms, readmission every 4 ticks; one retry per request. */
  static FleetConfig fastBreaker(FleetConfig c) {
    return c.withController(c.controller().withMonitorIntervalS(0.05))
        .withRecovery(c.recovery().withEjectAfter(2).withReadmitEvery(4).withLivenessEvery(0))
        .withServing(c.serving().withMaxAttempts(2));
  }

  private static String body(String prompt) {
    return "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":4}";
  }

  @Test
  void anEngineOneReplicaTakesOut_leavesPlacementOnEveryReplicaWithin200ms_andComesBackEverywhere()
      throws Exception {
    try (Replicas replicas = Replicas.start(3, 1, 2, ReplicaVerdictsTest::fastBreaker)) {
      until("every replica is ready", () -> ready(replicas));
      SimEngine d0 = replicas.sim("d0");
      d0.setFaults(FaultPlan.of("status=500,phase=decode"));
      EngineState[] views = {replicas.engine(0, "d0"), replicas.engine(1, "d0"), replicas.engine(2, "d0")};

      // Only replica 0 sees the failures: idle placement prefers d0, every attempt there fails
      // and the retry serves the client from d1.
      Thread sender = new Thread(() -> {
        for (int i = 0; i < 20 && views[0].inPlacement(); i++) {
          replicas.client(0).post("/v1/completions", body("on r0 " + i));
        }
      });
      sender.start();
      long[] outAt = new long[3];
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (System.nanoTime() < deadline && (outAt[0] == 0 || outAt[1] == 0 || outAt[2] == 0)) {
        long now = System.nanoTime();
        for (int i = 0; i < 3; i++) {
          if (outAt[i] == 0 && !views[i].inPlacement()) {
            outAt[i] = now;
          }
        }
        Thread.onSpinWait();
      }
      sender.join();
      assertThat(outAt).as("d0 left placement on every replica").doesNotContain(0L);
      long first = Math.min(outAt[0], Math.min(outAt[1], outAt[2]));
      for (int i = 0; i < 3; i++) {
        assertThat((outAt[i] - first) / 1e6).as("ms until replica r%d applied the verdict", i).isLessThanOrEqualTo(200);
      }
      assertThat(views[1].conditionCause()).isEqualTo("inference_status");

      // Placement on the other replicas no longer uses d0.
      replicas.fleet.engines().forEach(SimEngine::clearReceived);
      for (int i = 0; i < 6; i++) {
        HttpResponse<String> r = replicas.client(1 + i % 2).post("/v1/completions", body("elsewhere " + i));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      }
      assertThat(clientRequests(d0)).as("no client request reaches d0 through r1 or r2").isEmpty();

      // One replica probes it (the one that took it out), not all three; fixed, it returns everywhere.
      d0.setFaults(FaultPlan.none());
      until("d0 back in placement on every replica", Duration.ofSeconds(10),
          () -> views[0].inPlacement() && views[1].inPlacement() && views[2].inPlacement());
      State r1 = State.of(replicas.client(1));
      // Back in placement (a quarantine r0 set for the failures it saw may still be running: shared too).
      assertThat(r1.engine("d0").path("state").asText()).isIn("active", "quarantined");
    }
  }

  @Test
  void aQuarantineOneReplicaStarts_holdsOnTheOthersTooWithinALoadInterval() throws Exception {
    try (Replicas replicas = Replicas.start(2, 1, 2, c -> fastBreaker(c)
        .withRecovery(fastBreaker(c).recovery().withFailureQuarantineS(3)))) {
      until("both replicas are ready", () -> ready(replicas));
      // One failed decode on d0 through r0: r0 retries on d1 and quarantines d0.
      replicas.sim("d0").setFaults(FaultPlan.of("status=500,phase=decode,count=1"));
      HttpResponse<String> r = replicas.client(0).post("/v1/completions", body("quarantine"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      long now = System.nanoTime();
      assertThat(replicas.engine(0, "d0").isQuarantined(now)).as("r0 quarantined d0").isTrue();
      until("r1 holds d0 in quarantine too", Duration.ofSeconds(2),
          () -> replicas.engine(1, "d0").isQuarantined(System.nanoTime()));
      assertThat(State.of(replicas.client(1)).engine("d0").path("state").asText()).isEqualTo("quarantined");
      assertThat(replicas.engine(1, "d0").inPlacement()).as("a quarantine, not a breaker verdict").isTrue();
    }
  }

  static boolean ready(Replicas replicas) {
    for (int i = 0; i < replicas.size(); i++) {
      if (!replicas.router(i).router().ready()) {
        return false;
      }
    }
    return true;
  }

  static List<ReceivedRequest> clientRequests(SimEngine engine) {
    return engine.received().stream()
        .filter(r -> r.path().startsWith("/v1/"))
        .filter(r -> r.body() != null && !r.body().path("prompt").asText().startsWith("narwhal probe"))
        .toList();
  }

  /** {@code /narwhal/state} of one replica. */
  record State(JsonNode doc) {
    static State of(RouterClient client) throws Exception {
      return new State(RouterClient.json(client.get("/narwhal/state").body()));
    }

    JsonNode engine(String iid) {
      for (JsonNode e : doc.path("engines")) {
        if (e.path("iid").asText().equals(iid)) {
          return e;
        }
      }
      throw new AssertionError("no engine " + iid + " in " + doc);
    }

    JsonNode cluster() {
      return doc.path("cluster");
    }
  }
}
