package narwhal.sim;

import static narwhal.sim.SimHttp.await;
import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StreamLifecycleTest {

  @Test
  void clientDisconnectMidStream_cancelsStreamPromptly() throws IOException {
    try (SimEngine engine = SimEngine.start(SimOptions.builder().interTokenMillis(20).build())) {
      try (RawSse raw =
          RawSse.post(engine.port(), "/v1/completions", completion("long", 1000, true)).readHead()) {
        assertThat(raw.nextData()).contains("\"text\"");
        assertThat(raw.nextData()).contains("\"text\"");
        assertThat(engine.stats().activeStreams()).isEqualTo(1);
      }
      await("cancelled stream", () -> engine.stats().cancelledStreams() == 1);
      assertThat(engine.stats().activeStreams()).isZero();
      assertThat(engine.stats().cancelledRequests()).isEqualTo(1);
      await("connection closed", () -> engine.stats().openConnections() == 0);
      long tokens = engine.stats().generationTokens();
      assertThat(tokens).isLessThan(1000);
    }
  }

  @Test
  void clientDisconnectDuringNonStreamingRequest_isCountedAsCancelledRequest() throws IOException {
    try (SimEngine engine = SimEngine.start(SimOptions.builder().interTokenMillis(20).build())) {
      RawSse raw = RawSse.post(engine.port(), "/v1/completions", completion("x", 1000, false));
      await("request active", () -> engine.stats().activeRequests() == 1);
      raw.close();
      await("cancelled request", () -> engine.stats().cancelledRequests() == 1);
      assertThat(engine.stats().cancelledStreams()).isZero();
    }
  }

  @Test
  void slowReader_pausesGenerationUntilWritable() throws IOException {
    SimOptions options =
        SimOptions.builder().interTokenMillis(0).prefillBaseMillis(0).maxModelLen(1_000_000).build();
    try (SimEngine engine = SimEngine.start(options)) {
      try (RawSse raw =
          RawSse.post(engine.port(), "/v1/completions", completion("flood", 200_000, true), 4096)
              .readHead()) {
        // The client reads nothing more: once the socket buffers fill, generation must stop.
        long[] last = {-1};
        await(
            "generation to stall",
            () -> {
              long now = engine.stats().generationTokens();
              boolean stalled = now > 0 && now == last[0];
              last[0] = now;
              sleepQuietly(100);
              return stalled;
            });
        assertThat(last[0]).isLessThan(200_000);
        assertThat(engine.stats().activeStreams()).isEqualTo(1);

        // Draining the socket lets it continue (the kernel reports writable only once a good
        // part of the send buffer is free, so read until the engine produces again).
        long read = 0;
        while (engine.stats().generationTokens() == last[0] && read < last[0]) {
          raw.nextData();
          read++;
        }
        assertThat(engine.stats().generationTokens()).isGreaterThan(last[0]);
      }
      await("cancelled", () -> engine.stats().cancelledStreams() == 1);
    }
  }

  @Test
  void fiveHundredConcurrentStreams_allCompleteWithExpectedText() {
    SimOptions options = SimOptions.builder().interTokenMillis(1).prefillBaseMillis(1).seed(5).build();
    try (SimEngine engine = SimEngine.start(options)) {
      List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        HttpRequest request =
            HttpRequest.newBuilder(URI.create(engine.baseUrl() + "/v1/completions"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(completion("prompt " + (i % 7), 20, true)))
                .build();
        responses.add(SimHttp.CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
      }
      for (int i = 0; i < 500; i++) {
        List<String> events = sseData(responses.get(i).join().body());
        assertThat(events).hasSize(21);
        assertThat(events.get(20)).isEqualTo("[DONE]");
        StringBuilder text = new StringBuilder();
        for (String event : events.subList(0, 20)) {
          text.append(json(event).get("choices").get(0).get("text").asText());
        }
        assertThat(text.toString()).isEqualTo(SimEngine.expectedText(5, "prompt " + (i % 7), 20));
      }
      assertThat(engine.stats().requests()).isEqualTo(500);
      await("all streams finished", () -> engine.stats().activeStreams() == 0);
      assertThat(engine.stats().cancelledStreams()).isZero();
    }
  }

  @Test
  void sharedEventLoopGroup_servesSeveralEnginesAndOutlivesThem() {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      SimEngine first = SimEngine.start(SimOptions.builder().interTokenMillis(1).build(), group);
      SimEngine second = SimEngine.start(SimOptions.builder().interTokenMillis(1).build(), group);
      assertThat(SimHttp.post(first, "/v1/completions", completion("x", 2, true)).statusCode()).isEqualTo(200);
      first.close();
      assertThat(group.isShuttingDown()).isFalse();
      assertThat(SimHttp.post(second, "/v1/completions", completion("x", 2, true)).statusCode()).isEqualTo(200);
      second.close();
      assertThat(group.isShuttingDown()).isFalse();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static void sleepQuietly(long millis) {
    narwhal.testing.Poll.pause(millis);
  }
}
