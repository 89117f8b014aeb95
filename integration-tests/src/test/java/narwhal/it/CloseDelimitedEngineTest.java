package narwhal.it;

import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import narwhal.sim.SimEngine;
import narwhal.sim.SimStats;
import narwhal.sim.StreamFraming;
import org.junit.jupiter.api.Test;

/**
 * Engines that end each streamed response by closing the connection (HTTP/1.1 bodies with
 * neither Content-Length nor chunking, as some OpenAI-compatible servers send): the router reads
 * the stream to its end, relays it whole, and never reuses the closed connection.
 */
class CloseDelimitedEngineTest {

  @Test
  void streamsFromCloseDelimitedDecodeLegs_arriveWhole_eachOnAFreshConnection() {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1,
        RoutedFleet.fastEngines().streamFraming(StreamFraming.CLOSE).build(), c -> c, null)) {
      for (int i = 0; i < 3; i++) {
        String prompt = "close " + i;
        RouterClient.SseResponse r = fleet.client.stream("/v1/completions", "{\"model\":\"narwhal-sim\","
            + "\"prompt\":\"" + prompt + "\",\"max_tokens\":5,\"stream\":true}");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.endsWithDone()).isTrue();
        assertThat(r.text()).isEqualTo(String.join("", SimEngine.expectedTokens(0, prompt, 5)));
      }
      // Chat, not streamed to the client: the router still reads the engine's stream to its close.
      HttpResponse<String> chat = fleet.client.post("/v1/chat/completions", "{\"model\":\"narwhal-sim\","
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4}");
      assertThat(chat.statusCode()).isEqualTo(200);
      assertThat(RouterClient.json(chat.body()).path("choices").path(0).path("finish_reason").asText())
          .isEqualTo("length");

      // Every decode leg needed its own connection; the four prefill legs (ordinary JSON answers)
      // reused kept-alive ones (health checks may add one per event loop).
      assertThat(fleet.engine("d0").stats().totalConnections()).isGreaterThanOrEqualTo(4);
      assertThat(fleet.engine("p0").stats().totalConnections()).isLessThan(4);
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void whileTheEnginePrefills_aConnectionToTheDecodeEngineIsReadied_andTheDecodeLegTakesIt() {
    // A slow prefill, and no monitoring pass that could open connections of its own meanwhile.
    try (RoutedFleet fleet = RoutedFleet.start(1, 1,
        RoutedFleet.fastEngines().streamFraming(StreamFraming.CLOSE).prefillBaseMillis(400).build(),
        c -> c.withController(c.controller().withMonitorIntervalS(3600)), null)) {
      SimStats producer = fleet.engine("p0").stats();
      SimStats consumer = fleet.engine("d0").stats();
      long connectionsBefore = consumer.totalConnections();
      String prompt = "readied";

      CompletableFuture<RouterClient.SseResponse> response = CompletableFuture.supplyAsync(() ->
          fleet.client.stream("/v1/completions", "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt
              + "\",\"max_tokens\":3,\"stream\":true}"));

      until("the decode engine accepts a connection while the prefill leg is still running",
          () -> consumer.totalConnections() > connectionsBefore && producer.activeRequests() == 1);
      assertThat(consumer.requests()).as("decode requests received before the prefill answered").isZero();

      RouterClient.SseResponse r = response.join();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.text()).isEqualTo(String.join("", SimEngine.expectedTokens(0, prompt, 3)));
      assertThat(consumer.totalConnections())
          .as("the decode leg went over the readied connection, not a second one")
          .isEqualTo(connectionsBefore + 1);
      fleet.assertReservationsReturnToZero();
    }
  }
}
