package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

/**
 * Many streams at once: each gets exactly its own tokens, they really are in flight together, and
 * everything is released after.
 */
class ConcurrentStreamsTest {

  private static final int STREAMS = 200;
  private static final int MIN_OVERLAP = 150;
  private static final int TOKENS = 12;
  private static final int WARM_UPS = 4;
  /**
   * Every decode holds its stream open this long after the first token (then sends the rest at
   * 5 ms a token): longer than a loaded 2-core machine needs to get all 200 first tokens out
   * (1.5 s typically, 3.4 s at worst when measured beside other builds), so the streams must
   * overlap with room to spare, and the test still takes only about ten seconds. A hold rather than slow tokens
   * throughout: quiet streams leave the CPU to the burst of starts, which keeps them together.
   */
  private static final int HOLD_MILLIS = 8000;
  private static final String HOLD = "[[sim:silence-after=1,ms=" + HOLD_MILLIS + ",phase=decode]]";

  @Test
  void twoHundredConcurrentStreams_overlap_andAllCompleteWithTheirOwnTokens() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2,
        RoutedFleet.fastEngines().interTokenMillis(5).build(),
        // This test is about correctness under concurrency, not latency: a loaded CI machine
        // must not turn slow first tokens into failures.
        c -> c.withEngine(c.engine().withFirstTokenTimeoutS(30)), null)) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10)).build();
      URI uri = URI.create("http://127.0.0.1:" + fleet.router.port() + "/v1/completions");
      // Warm up first (connections, JIT, the router's engine pools) so the burst below starts as
      // one burst rather than trickling out behind first-use costs.
      for (int i = 0; i < WARM_UPS; i++) {
        assertThat(timedStream(http, uri, "{\"model\":\"narwhal-sim\",\"prompt\":\"warm up " + i
            + "\",\"max_tokens\":1,\"stream\":true}").response().status()).isEqualTo(200);
      }
      ExecutorService pool = Executors.newFixedThreadPool(STREAMS);
      List<TimedStream> results = new ArrayList<>();
      try {
        List<CompletableFuture<TimedStream>> all = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
          String body = "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt(i) + "\",\"max_tokens\":"
              + TOKENS + ",\"stream\":true}";
          all.add(CompletableFuture.supplyAsync(() -> timedStream(http, uri, body), pool));
        }
        for (int i = 0; i < STREAMS; i++) {
          TimedStream t = all.get(i).get();
          results.add(t);
          RouterClient.SseResponse r = t.response();
          assertThat(r.status()).as("stream %d status: %s", i, r.raw()).isEqualTo(200);
          assertThat(r.endsWithDone()).as("stream %d ends with [DONE]", i).isTrue();
          assertThat(r.text()).as("stream %d text", i)
              .isEqualTo(String.join("", SimEngine.expectedTokens(0, prompt(i), TOKENS)));
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(peakOverlap(results))
          .as("streams between their first chunk and their end at one instant; %s", timeline(results))
          .isGreaterThanOrEqualTo(MIN_OVERLAP);
      fleet.assertReservationsReturnToZero();
      long pulls = fleet.fleet.engines().stream().mapToLong(e -> e.stats().kvPulls()).sum();
      assertThat(pulls).isEqualTo(STREAMS + WARM_UPS);
    }
  }

  private static String prompt(int i) {
    return HOLD + " stream number " + i;
  }

  /** One stream read to the end, with when (client side) its first chunk came and when it ended. */
  private record TimedStream(RouterClient.SseResponse response, long firstChunkNanos, long endNanos) {}

  private static TimedStream timedStream(HttpClient http, URI uri, String body) {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    try {
      HttpResponse<Stream<String>> r = http.send(request, HttpResponse.BodyHandlers.ofLines());
      List<String> data = new ArrayList<>();
      List<String> raw = new ArrayList<>();
      long[] first = {Long.MAX_VALUE};
      r.body().forEach(line -> {
        raw.add(line);
        if (line.startsWith("data: ")) {
          if (first[0] == Long.MAX_VALUE) {
            first[0] = System.nanoTime();
          }
          data.add(line.substring(6));
        }
      });
      long end = System.nanoTime();
      return new TimedStream(new RouterClient.SseResponse(r.statusCode(),
          r.headers().firstValue("content-type").orElse(""), r.headers().firstValue("x-request-id").orElse(null),
          data, String.join("\n", raw)), first[0], end);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** When, relative to the first, the streams' first chunks came and the first ones ended: for a failure. */
  private static String timeline(List<TimedStream> streams) {
    long t0 = streams.stream().mapToLong(TimedStream::firstChunkNanos).min().orElse(0);
    long[] starts = streams.stream().mapToLong(t -> (t.firstChunkNanos() - t0) / 1_000_000).sorted().toArray();
    long[] ends = streams.stream().mapToLong(t -> (t.endNanos() - t0) / 1_000_000).sorted().toArray();
    return "first chunks by ms " + starts[starts.length / 2] + " (half), " + starts[starts.length * 3 / 4]
        + " (three quarters), " + starts[starts.length - 1] + " (all); first end at ms " + ends[0];
  }

  /** The most streams that were at once between their first chunk and their end. */
  private static int peakOverlap(List<TimedStream> streams) {
    record Edge(long at, int delta) {}
    List<Edge> edges = new ArrayList<>();
    for (TimedStream s : streams) {
      edges.add(new Edge(s.firstChunkNanos(), 1));
      edges.add(new Edge(s.endNanos(), -1));
    }
    // At equal instants an end counts before a start, so touching intervals do not overlap.
    edges.sort(Comparator.comparingLong(Edge::at).thenComparingInt(Edge::delta));
    int open = 0;
    int peak = 0;
    for (Edge e : edges) {
      open += e.delta();
      peak = Math.max(peak, open);
    }
    return peak;
  }
}
