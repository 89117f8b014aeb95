package narwhal.bench.cache;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Replays conversations: each starts at its time, each turn is a streamed completion whose prompt
 * is the conversation so far (earlier user messages and the replies the engines streamed), the next
 * turn going out its think time after the reply ends (a failed turn ends its conversation). Either
 * through a router ({@code /v1/completions}), or, for the round-robin arm, as vLLM's toy proxy does
 * it: the prefill leg ({@code max_tokens} 1, {@code do_remote_decode}) to the next engine in turn,
 * then the decode leg with its {@code kv_transfer_params} to the next other one.
 */
final class ConversationClient {

  /** One turn as the client saw it. */
  record Turn(String conversation, int turn, int status, int promptWords, int tokens, boolean done, double ttftS,
      double tpotS, long cachedTokens, @Nullable String error) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final String model;
  /** The router's base URL, or null for the round-robin arm. */
  private final @Nullable String router;
  private final List<String> engines;
  private final AtomicInteger next = new AtomicInteger();

  ConversationClient(String model, @Nullable String router, List<String> engines) {
    this.model = model;
    this.router = router;
    this.engines = engines;
  }

  List<Turn> replay(List<CacheTraces.Conversation> conversations, double seconds) throws InterruptedException {
    ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, r -> {
      Thread t = new Thread(r, "cache-bench-client");
      t.setDaemon(true);
      return t;
    });
    List<Turn> turns = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<Void>> all = Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    for (int i = 0; i < conversations.size(); i++) {
      CacheTraces.Conversation c = conversations.get(i);
      CompletableFuture<Void> finished = new CompletableFuture<>();
      all.add(finished);
      String id = "c" + i;
      timer.schedule(() -> turn(timer, id, c, 0, "", turns, finished),
          c.startNanos() - (System.nanoTime() - start), TimeUnit.NANOSECONDS);
    }
    // Every conversation has started once the trace's time is over; the last turns may take longer.
    Thread.sleep(Math.max(0, Math.round(seconds * 1000) - (System.nanoTime() - start) / 1_000_000));
    try {
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);
    } catch (Exception e) {
      // A stuck conversation shows as missing turns.
    }
    timer.shutdownNow();
    synchronized (turns) {
      return List.copyOf(turns);
    }
  }

  private void turn(ScheduledExecutorService timer, String id, CacheTraces.Conversation c, int t, String history,
      List<Turn> turns, CompletableFuture<Void> finished) {
    String prompt = history.isEmpty() ? c.userTurns().get(t) : history + " " + c.userTurns().get(t);
    send(id, t, prompt, c.outputs().get(t)).whenComplete((result, error) -> {
      if (error != null || result == null) {
        turns.add(new Turn(id, t, 0, words(prompt), 0, false, Double.NaN, Double.NaN, -1, String.valueOf(error)));
        finished.complete(null);
        return;
      }
      turns.add(result.turn());
      if (result.turn().status() != 200 || !result.turn().done() || t + 1 >= c.userTurns().size()) {
        finished.complete(null);
        return;
      }
      String nextHistory = prompt + result.reply();
      timer.schedule(() -> turn(timer, id, c, t + 1, nextHistory, turns, finished), c.thinkNanos().get(t),
          TimeUnit.NANOSECONDS);
    });
  }

  /**
   * Closed loop: {@code streams} workers each sending the next of {@code prompts} (cycling) as soon
   * as its previous request ended, for {@code warmupS} then {@code measureS}; {@code window} is told
   * when the measurement window opens and closes, and the requests completed inside it are returned.
   */
  long closedLoop(List<String> prompts, int output, int streams, double warmupS, double measureS, Runnable open,
      Runnable close) throws InterruptedException {
    long start = System.nanoTime();
    long openAt = start + Math.round(warmupS * 1e9);
    long closeAt = openAt + Math.round(measureS * 1e9);
    AtomicInteger cursor = new AtomicInteger();
    java.util.concurrent.atomic.AtomicLong completed = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.CountDownLatch workers = new java.util.concurrent.CountDownLatch(streams);
    for (int w = 0; w < streams; w++) {
      loop(prompts, output, cursor, closeAt, openAt, completed, workers);
    }
    long untilOpen = openAt - System.nanoTime();
    if (untilOpen > 0) {
      Thread.sleep(untilOpen / 1_000_000);
    }
    open.run();
    long untilClose = closeAt - System.nanoTime();
    if (untilClose > 0) {
      Thread.sleep(untilClose / 1_000_000);
    }
    close.run();
    workers.await(180, TimeUnit.SECONDS);
    return completed.get();
  }

  private void loop(List<String> prompts, int output, AtomicInteger cursor, long closeAt, long openAt,
      java.util.concurrent.atomic.AtomicLong completed, java.util.concurrent.CountDownLatch workers) {
    if (System.nanoTime() >= closeAt) {
      workers.countDown();
      return;
    }
    String prompt = prompts.get(Math.floorMod(cursor.getAndIncrement(), prompts.size()));
    send("cpu", 0, prompt, output).whenComplete((r, e) -> {
      long now = System.nanoTime();
      if (e == null && r != null && r.turn().done() && now >= openAt && now < closeAt) {
        completed.incrementAndGet();
      }
      loop(prompts, output, cursor, closeAt, openAt, completed, workers);
    });
  }

  private record Result(Turn turn, String reply) {}

  private CompletableFuture<Result> send(String id, int t, String prompt, int output) {
    ObjectNode body = JSON.createObjectNode().put("model", model).put("prompt", prompt).put("max_tokens", output)
        .put("stream", true);
    if (router != null) {
      return stream(router + "/v1/completions", body, id, t, prompt, System.nanoTime(), -1);
    }
    // Round robin, as vLLM's toy proxy: prefill on the next engine, decode on the one after it.
    int n = next.getAndIncrement();
    String producer = engines.get(Math.floorMod(n, engines.size()));
    String consumer = engines.get(Math.floorMod(n + 1, engines.size()));
    ObjectNode prefill = body.deepCopy().put("max_tokens", 1).put("stream", false);
    ObjectNode kv = prefill.putObject("kv_transfer_params");
    kv.put("do_remote_decode", true).put("do_remote_prefill", false).putNull("remote_engine_id")
        .putNull("remote_block_ids").putNull("remote_host").putNull("remote_port");
    long sent = System.nanoTime();
    return http.sendAsync(post(producer + "/v1/completions", prefill), HttpResponse.BodyHandlers.ofString())
        .thenCompose(r -> {
          if (r.statusCode() != 200) {
            return CompletableFuture.completedFuture(new Result(new Turn(id, t, r.statusCode(), words(prompt), 0,
                false, Double.NaN, Double.NaN, -1, r.body()), ""));
          }
          JsonNode answer = json(r.body());
          long cached = answer.path("usage").path("prompt_tokens_details").path("cached_tokens").asLong(0);
          body.set("kv_transfer_params", answer.get("kv_transfer_params"));
          return stream(consumer + "/v1/completions", body, id, t, prompt, sent, cached);
        });
  }

  private CompletableFuture<Result> stream(String url, ObjectNode body, String id, int t, String prompt, long sent,
      long cached) {
    return http.sendAsync(post(url, body), HttpResponse.BodyHandlers.ofLines()).thenApply(r -> {
      if (r.statusCode() != 200) {
        String text = String.join("\n", r.body().limit(20).toList());
        return new Result(new Turn(id, t, r.statusCode(), words(prompt), 0, false, Double.NaN, Double.NaN, cached,
            text), "");
      }
      StringBuilder reply = new StringBuilder();
      long[] first = {0};
      long[] last = {0};
      int[] tokens = {0};
      boolean[] done = {false};
      try (Stream<String> lines = r.body()) {
        lines.forEach(line -> {
          if (!line.startsWith("data: ")) {
            return;
          }
          String data = line.substring(6);
          if (data.equals("[DONE]")) {
            done[0] = true;
            return;
          }
          String text = json(data).path("choices").path(0).path("text").asText("");
          if (!text.isEmpty()) {
            long now = System.nanoTime();
            if (first[0] == 0) {
              first[0] = now;
            }
            last[0] = now;
            tokens[0]++;
            reply.append(text);
          }
        });
      }
      double ttft = first[0] == 0 ? Double.NaN : (first[0] - sent) / 1e9;
      double tpot = tokens[0] < 2 ? 0 : (last[0] - first[0]) / 1e9 / (tokens[0] - 1);
      return new Result(new Turn(id, t, 200, words(prompt), tokens[0], done[0], ttft, tpot, cached, null),
          reply.toString());
    });
  }

  private static HttpRequest post(String url, ObjectNode body) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      return JSON.createObjectNode();
    }
  }

  private static int words(String text) {
    return text.isBlank() ? 1 : text.trim().split("\\s+").length;
  }
}
