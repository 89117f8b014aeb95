package narwhal.it;

import static narwhal.testing.Poll.until;
import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graceful shutdown: once draining, the router refuses new requests (503 with Retry-After, /ready
 * 503) while the streams already in flight run to [DONE]; past the graceful timeout the rest are
 * cut off.
 */
class GracefulShutdownTest {

  /** A stream of 4 tokens that pauses {@code ms} after the second. */
  private static String pausing(int ms) {
    return "{\"prompt\": \"drain [[sim:silence-after=2,ms=" + ms + ",phase=decode]]\", \"max_tokens\": 4,"
        + " \"stream\": true}";
  }


  @Test
  void draining_refusesNewRequests_whileTheInFlightStreamCompletes(@TempDir Path dir) throws Exception {
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, journal.path())) {
      CompletableFuture<RouterClient.SseResponse> inFlight =
          CompletableFuture.supplyAsync(() -> fleet.client.stream("/v1/completions", pausing(600)));
      until("the stream to be in flight", () -> fleet.router.router().admission().inFlight() == 1);

      CompletableFuture<Boolean> shutdown =
          CompletableFuture.supplyAsync(() -> fleet.router.shutdownGracefully(Duration.ofSeconds(10)));
      until("draining to start", () -> fleet.router.router().admission().isDraining());

      HttpResponse<String> refused = fleet.client.post("/v1/completions", "{\"prompt\": \"late\", \"max_tokens\": 2}");
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
      assertThat(json(refused.body()).path("error").path("type").asText()).isEqualTo("draining");
      assertThat(fleet.client.get("/ready").statusCode()).isEqualTo(503);
      assertThat(inFlight).isNotDone();

      RouterClient.SseResponse stream = inFlight.get(10, TimeUnit.SECONDS);
      assertThat(stream.status()).isEqualTo(200);
      assertThat(stream.endsWithDone()).isTrue();
      assertThat(stream.chunks()).hasSizeGreaterThanOrEqualTo(4);
      assertThat(shutdown.get(10, TimeUnit.SECONDS)).isTrue();

      List<JsonNode> rows = journal.awaitRequestRows(2);
      assertThat(journal.row(stream.requestId()).path("terminal").asText()).isEqualTo("completed");
      JsonNode rejected = journal.row(refused.headers().firstValue("x-request-id").orElseThrow());
      assertThat(rejected.path("terminal").asText()).isEqualTo("rejected");
      assertThat(rejected.path("reason").asText()).isEqualTo("not_ready");
      assertThat(rows).hasSize(2);
    }
  }

  @Test
  void pastTheGracefulTimeout_theRemainingStreamsAreCut(@TempDir Path dir) throws Exception {
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, journal.path())) {
      CompletableFuture<RouterClient.SseResponse> inFlight = CompletableFuture.supplyAsync(() -> {
        try {
          return fleet.client.stream("/v1/completions", pausing(5_000));
        } catch (RuntimeException e) {
          return null; // the connection was closed under it: also a cut stream
        }
      });
      until("the stream to be in flight", () -> fleet.router.router().admission().inFlight() == 1);

      boolean drained = fleet.router.shutdownGracefully(Duration.ofMillis(200));

      assertThat(drained).isFalse();
      RouterClient.SseResponse stream = inFlight.get(10, TimeUnit.SECONDS);
      assertThat(stream == null || !stream.endsWithDone()).isTrue();
      List<JsonNode> rows = journal.awaitRequestRows(1);
      assertThat(rows.get(0).path("terminal").asText()).isEqualTo("cancelled");
      assertThat(fleet.router.router().admission().inFlight()).isZero();
    }
  }
}
