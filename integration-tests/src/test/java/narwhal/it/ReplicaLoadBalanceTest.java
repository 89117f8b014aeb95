package narwhal.it;

import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.sim.SimEngine;
import narwhal.testing.Poll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two replicas pricing one 1P2D fleet over a real etcd: each places decode streams by the fleet's
 * resident work (its own plus what the other replica last sent it), so the decode engines stay
 * balanced within one stream. Alone, each replica balances only its own streams, and ties go to the
 * lowest iid: three streams through each would leave d0 with four and d1 with two.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicaLoadBalanceTest {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void tworeplicasOn1p2d_keepTheDecodeEnginesWithinOneStream() throws Exception {
    try (Replicas replicas = Replicas.start(2, 1, 2, RoutedFleet.fastEngines().interTokenMillis(10).build(),
        c -> c.withController(c.controller().withMonitorIntervalS(0.1)))) {
      until("both replicas are ready", () -> ReplicaVerdictsTest.ready(replicas));
      SimEngine d0 = replicas.sim("d0");
      SimEngine d1 = replicas.sim("d1");

      // Three long streams through r0, then three through r1 once r0's load has reached it.
      List<CompletableFuture<HttpResponse<String>>> streams = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        streams.add(stream(replicas, 0, 600));
        Poll.pause(100);
      }
      until("r1 sees r0's three decode streams", Duration.ofSeconds(5),
          () -> replicas.engine(1, "d0").peerWork().decode() + replicas.engine(1, "d1").peerWork().decode() == 3);
      for (int i = 0; i < 3; i++) {
        streams.add(stream(replicas, 1, 600));
        Poll.pause(100);
      }
      until("six streams decoding", Duration.ofSeconds(5),
          () -> d0.stats().activeRequests() + d1.stats().activeRequests() == 6);
      long onD0 = d0.stats().activeRequests();
      long onD1 = d1.stats().activeRequests();
      System.out.printf("two replicas, six streams: d0 %d, d1 %d%n", onD0, onD1);
      assertThat(Math.abs(onD0 - onD1)).as("d0 %d, d1 %d", onD0, onD1).isLessThanOrEqualTo(1);
      for (CompletableFuture<HttpResponse<String>> s : streams) {
        assertThat(s.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      }

      // Steady state: closed loops of odd size through each replica, streams of varied length (equal
      // ones would end, and arrive again, in lockstep on both replicas); sampled, the engines stay within one.
      int[] gaps = new int[200];
      int n = 0;
      try (ClosedLoops loops = new ClosedLoops(replicas, new int[] {5, 5}, 150)) {
        Poll.pause(1500);
        for (; n < gaps.length; n++) {
          gaps[n] = (int) Math.abs(d0.stats().activeRequests() - d1.stats().activeRequests());
          Poll.pause(20);
        }
      }
      int[] sorted = Arrays.copyOf(gaps, n);
      Arrays.sort(sorted);
      int median = sorted[n / 2];
      System.out.printf("two replicas, ten closed loops: median |d0 - d1| %d, p90 %d%n", median,
          sorted[(int) (n * 0.9)]);
      assertThat(median).as("median gap between the decode engines' streams").isLessThanOrEqualTo(1);
    }
  }

  static CompletableFuture<HttpResponse<String>> stream(Replicas replicas, int replica, int tokens) {
    URI uri = URI.create("http://127.0.0.1:" + replicas.router(replica).port() + "/v1/completions");
    return HTTP.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"narwhal-sim\",\"prompt\":\"balance\",\"max_tokens\":"
            + tokens + ",\"stream\":true}")).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Closed-loop streaming clients, so many per replica, each asking for {@code tokens}. */
  static final class ClosedLoops implements AutoCloseable {
    private volatile boolean running = true;
    private final List<Thread> threads = new ArrayList<>();

    ClosedLoops(Replicas replicas, int[] perReplica, int tokens) {
      for (int r = 0; r < perReplica.length; r++) {
        int replica = r;
        for (int c = 0; c < perReplica[r]; c++) {
          long seed = replica * 100L + c;
          Thread t = new Thread(() -> {
            java.util.Random random = new java.util.Random(seed);
            while (running) {
              try {
                stream(replicas, replica, tokens + random.nextInt(tokens)).get(60, TimeUnit.SECONDS);
              } catch (Exception e) {
                // the assertion is on the engines' balance; a failed stream just starts the next
              }
            }
          }, "balance-client");
          t.start();
          threads.add(t);
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      for (Thread t : threads) {
        t.join(60_000);
      }
    }
  }
}
