package narwhal.it;

import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import narwhal.core.fleet.EngineCondition;
import narwhal.sim.FaultPlan;
import narwhal.testing.Poll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * etcd failing under load, with two replicas serving closed-loop clients through both: etcd hung
 * (SIGSTOP) and then killed and restarted. Every replica keeps serving on what it knows — not one
 * request fails, {@code /ready} stays 200 — while {@code /narwhal/state} says {@code cluster:
 * degraded} with the reason, the degraded gauge reads 1 and one log line marks each transition.
 * When etcd answers again each replica reconciles without a restart: a verdict decided during the
 * outage reaches the other replica.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReplicaEtcdFaultsTest {

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger clusterLog = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger("narwhal.cluster");

  private ch.qos.logback.classic.Level level;

  @BeforeEach
  void captureClusterLog() {
    level = clusterLog.getLevel();
    clusterLog.setLevel(ch.qos.logback.classic.Level.INFO); // the "cluster ok" lines are INFO
    logs.start();
    clusterLog.addAppender(logs);
  }

  @AfterEach
  void stopCapturing() {
    clusterLog.detachAppender(logs);
    clusterLog.setLevel(level);
  }

  @Test
  void etcdHungThenKilledAndRestarted_midLoad_noRequestFails_stateSaysDegraded_reconcilesAfter() throws Exception {
    try (Replicas replicas = Replicas.start(2, 1, 2, ReplicaVerdictsTest::fastBreaker)) {
      until("both replicas are ready", () -> ReplicaVerdictsTest.ready(replicas));
      try (Load load = new Load(replicas, 4)) {
        Poll.pause(500);

        // 1. etcd hangs: requests to it time out.
        replicas.etcd.pause();
        until("both replicas say degraded", Duration.ofSeconds(10),
            () -> "degraded".equals(cluster(replicas, 0).path("status").asText())
                && "degraded".equals(cluster(replicas, 1).path("status").asText()));
        JsonNode degraded = cluster(replicas, 0);
        assertThat(degraded.path("reason").asText()).contains("etcd");
        assertThat(replicas.client(0).get("/ready").statusCode()).isEqualTo(200);
        assertThat(replicas.client(1).get("/ready").statusCode()).isEqualTo(200);
        assertThat(replicas.client(0).get("/metrics").body()).contains("narwhal_cluster_degraded 1");
        Poll.pause(1000);
        replicas.etcd.resume();
        until("both replicas are ok again", Duration.ofSeconds(15),
            () -> "ok".equals(cluster(replicas, 0).path("status").asText())
                && "ok".equals(cluster(replicas, 1).path("status").asText()));

        // 2. etcd killed and restarted, still under load.
        replicas.etcd.kill();
        until("both replicas notice", Duration.ofSeconds(10),
            () -> "degraded".equals(cluster(replicas, 0).path("status").asText())
                && "degraded".equals(cluster(replicas, 1).path("status").asText()));
        assertThat(replicas.client(1).get("/ready").statusCode()).isEqualTo(200);
        Poll.pause(1000);
        replicas.etcd.restart();
        until("both replicas are ok again", Duration.ofSeconds(20),
            () -> "ok".equals(cluster(replicas, 0).path("status").asText())
                && "ok".equals(cluster(replicas, 1).path("status").asText()));
        Poll.pause(500);
      } finally {
        replicas.etcd.resume();
      }

      // 3. A verdict made while etcd is away reaches the other replica once etcd is back.
      replicas.etcd.kill();
      until("r0 notices", Duration.ofSeconds(10), () -> "degraded".equals(cluster(replicas, 0).path("status").asText()));
      replicas.sim("d0").setFaults(FaultPlan.of("status=500,phase=decode"));
      for (int i = 0; i < 4 && replicas.engine(0, "d0").inPlacement(); i++) {
        assertThat(replicas.client(0).post("/v1/completions",
            "{\"model\":\"narwhal-sim\",\"prompt\":\"only r0 sees " + i + "\",\"max_tokens\":4}").statusCode())
            .isEqualTo(200);
      }
      until("r0 takes d0 out", Duration.ofSeconds(10), () -> !replicas.engine(0, "d0").inPlacement());
      assertThat(replicas.engine(1, "d0").condition()).as("r1 cannot know yet").isEqualTo(EngineCondition.ACTIVE);
      replicas.etcd.restart();
      until("r1 applies the verdict r0 made during the outage", Duration.ofSeconds(20),
          () -> !replicas.engine(1, "d0").inPlacement());
      replicas.sim("d0").setFaults(FaultPlan.none());
      long degradedLines = logs.list.stream().filter(e -> e.getFormattedMessage().startsWith("cluster degraded")).count();
      long okLines = logs.list.stream().filter(e -> e.getFormattedMessage().startsWith("cluster ok")).count();
      System.out.printf("etcd faults: %d degraded and %d ok log lines%n", degradedLines, okLines);
      // One line per transition and replica: three outages, two replicas; r1 may not notice the third.
      assertThat(degradedLines).isBetween(5L, 6L);
      until("every replica is ok again", Duration.ofSeconds(20),
          () -> "ok".equals(cluster(replicas, 0).path("status").asText())
              && "ok".equals(cluster(replicas, 1).path("status").asText()));
      long ok = logs.list.stream().filter(e -> e.getFormattedMessage().startsWith("cluster ok")).count();
      assertThat(ok).as("one ok line per degraded line").isEqualTo(
          logs.list.stream().filter(e -> e.getFormattedMessage().startsWith("cluster degraded")).count());
    }
  }

  private static JsonNode cluster(Replicas replicas, int i) {
    try {
      return ReplicaVerdictsTest.State.of(replicas.client(i)).cluster();
    } catch (Exception e) {
      throw new AssertionError("replica r" + i + " did not answer /narwhal/state", e);
    }
  }

  /** Closed-loop clients through every replica; closing checks that every request was served. */
  final class Load implements AutoCloseable {
    private volatile boolean running = true;
    private final List<Thread> threads = new ArrayList<>();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private int served;

    Load(Replicas replicas, int perReplica) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5)).build();
      for (int r = 0; r < replicas.size(); r++) {
        URI uri = URI.create("http://127.0.0.1:" + replicas.router(r).port() + "/v1/completions");
        for (int c = 0; c < perReplica; c++) {
          Thread t = new Thread(() -> {
            int i = 0;
            while (running) {
              try {
                HttpResponse<String> resp = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"narwhal-sim\",\"prompt\":\"etcd away " + i++ + "\",\"max_tokens\":8}")).build(),
                    HttpResponse.BodyHandlers.ofString());
                synchronized (this) {
                  served++;
                }
                if (resp.statusCode() != 200) {
                  failures.add(resp.statusCode() + " " + resp.body());
                }
              } catch (Exception e) {
                failures.add(e.toString());
              }
            }
          }, "etcd-fault-client");
          t.start();
          threads.add(t);
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      for (Thread t : threads) {
        t.join(30_000);
      }
      System.out.printf("etcd faults: %d requests served, %d failed%n", served, failures.size());
      assertThat(failures).as("requests that failed while etcd was away").isEmpty();
      assertThat(served).isGreaterThan(100);
    }
  }
}
