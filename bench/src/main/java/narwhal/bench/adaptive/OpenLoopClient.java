package narwhal.bench.adaptive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Sends a trace's requests at their arrival times whatever happens to earlier ones (open loop: a
 * slow router does not slow the offered load), each a streamed completion whose prompt has exactly
 * the arrival's token count in the simulator's tokenizer (whitespace-separated words), and records
 * what the client saw of each.
 */
final class OpenLoopClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI completions;
  private final String model;
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();

  OpenLoopClient(String baseUrl, String model) {
    this.completions = URI.create(baseUrl + "/v1/completions");
    this.model = model;
  }

  /** Replays {@code trace} and returns every request's outcome once the last one has ended. */
  List<ReplayedRequest> replay(Trace trace, Duration requestTimeout) throws InterruptedException {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "adaptive-arrivals");
      t.setDaemon(true);
      return t;
    });
    List<ReplayedRequest> outcomes = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<?>> pending = Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    for (Trace.Arrival a : trace.arrivals()) {
      timer.schedule(() -> pending.add(send(a, requestTimeout).thenAccept(outcomes::add)),
          a.atNanos() - (System.nanoTime() - start), TimeUnit.NANOSECONDS);
    }
    timer.shutdown();
    timer.awaitTermination((long) trace.seconds() + 60, TimeUnit.SECONDS);
    CompletableFuture<?>[] all;
    synchronized (pending) {
      all = pending.toArray(CompletableFuture<?>[]::new);
    }
    try {
      CompletableFuture.allOf(all).get(requestTimeout.toSeconds() + 30, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Each request's own outcome says what went wrong; a stuck one shows as missing.
    }
    synchronized (outcomes) {
      return List.copyOf(outcomes);
    }
  }

  private CompletableFuture<ReplayedRequest> send(Trace.Arrival a, Duration timeout) {
    ObjectNode body = JSON.createObjectNode()
        .put("model", model)
        .put("prompt", "w ".repeat(a.promptTokens()).strip())
        .put("max_tokens", a.outputTokens())
        .put("stream", true);
    HttpRequest request = HttpRequest.newBuilder(completions)
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
        .build();
    long sent = System.nanoTime();
    StreamTally tally = new StreamTally(sent);
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofLines())
        .thenApply(response -> {
          if (response.statusCode() != 200) {
            String text = String.join("\n", response.body().limit(20).toList());
            return new ReplayedRequest(a, response.statusCode(), 0, false, Double.NaN, Double.NaN, text);
          }
          try (Stream<String> lines = response.body()) {
            lines.forEach(tally);
          }
          return tally.outcome(a);
        })
        .exceptionally(e -> new ReplayedRequest(a, 0, tally.tokens, false, Double.NaN, Double.NaN, String.valueOf(e)));
  }

  /** Reads one SSE stream line by line: token times and the final {@code [DONE]}. */
  private static final class StreamTally implements Consumer<String> {
    private final long sent;
    private final AtomicLong first = new AtomicLong();
    private long last;
    private int tokens;
    private boolean done;

    StreamTally(long sent) {
      this.sent = sent;
    }

    @Override
    public void accept(String line) {
      if (!line.startsWith("data: ")) {
        return;
      }
      String data = line.substring(6);
      if (data.equals("[DONE]")) {
        done = true;
        return;
      }
      try {
        JsonNode chunk = JSON.readTree(data);
        // A token is a chunk with an id carrying text (usage-only chunks carry none).
        if (!chunk.path("id").asText().isEmpty() && !chunk.path("choices").path(0).path("text").asText().isEmpty()) {
          long now = System.nanoTime();
          first.compareAndSet(0, now);
          last = now;
          tokens++;
        }
      } catch (Exception e) {
        // A malformed chunk is not a token; the count then falls short and the request misses.
      }
    }

    ReplayedRequest outcome(Trace.Arrival a) {
      double ttft = first.get() == 0 ? Double.NaN : (first.get() - sent) / 1e9;
      double tpot = tokens < 2 ? 0 : (last - first.get()) / 1e9 / (tokens - 1);
      return new ReplayedRequest(a, 200, tokens, done, ttft, tpot, null);
    }
  }
}
