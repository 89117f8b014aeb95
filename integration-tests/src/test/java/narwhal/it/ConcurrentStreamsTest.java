package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

/** Many streams at once: each gets exactly its own tokens, and everything is released after. */
class ConcurrentStreamsTest {

  @Test
  void twoHundredConcurrentStreams_allCompleteWithTheirOwnTokens() throws Exception {
    int streams = 200;
    try (RoutedFleet fleet = RoutedFleet.start(2, 2,
        RoutedFleet.fastEngines().interTokenMillis(5).build(),
        // This test is about correctness under concurrency, not latency: a loaded CI machine
        // must not turn slow first tokens into failures.
        c -> c.withEngine(c.engine().withFirstTokenTimeoutS(30)), null)) {
      ExecutorService pool = Executors.newFixedThreadPool(streams);
      try {
        List<CompletableFuture<RouterClient.SseResponse>> all = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
          String prompt = "stream number " + i;
          all.add(CompletableFuture.supplyAsync(() -> fleet.client.stream("/v1/completions",
              "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":12,\"stream\":true}"), pool));
        }
        for (int i = 0; i < streams; i++) {
          RouterClient.SseResponse r = all.get(i).get();
          assertThat(r.status()).as("stream %d status: %s", i, r.raw()).isEqualTo(200);
          assertThat(r.endsWithDone()).as("stream %d ends with [DONE]", i).isTrue();
          assertThat(r.text()).as("stream %d text", i)
              .isEqualTo(String.join("", SimEngine.expectedTokens(0, "stream number " + i, 12)));
        }
      } finally {
        pool.shutdownNow();
      }
      fleet.assertReservationsReturnToZero();
      long pulls = fleet.fleet.engines().stream().mapToLong(e -> e.stats().kvPulls()).sum();
      assertThat(pulls).isEqualTo(streams);
    }
  }
}
