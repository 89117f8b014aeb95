package narwhal.sim;

import static narwhal.sim.SimHttp.await;
import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.post;
import static narwhal.sim.SimHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import narwhal.sim.gpu.GpuProfile;
import org.junit.jupiter.api.Test;

/**
 * Engines in gpu timing mode over real HTTP: the step loop's effects as a client sees them. Timing
 * checks are lower bounds the cost model guarantees (an engine is never faster than its steps),
 * or comparisons whose sides differ by hundreds of milliseconds.
 */
class GpuTimingTest {

  private static final String PREFILL_PARAMS =
      "\"kv_transfer_params\":{\"do_remote_decode\":true,\"do_remote_prefill\":false,"
          + "\"remote_engine_id\":null,\"remote_block_ids\":null,\"remote_host\":null,\"remote_port\":null}";

  /** A fast engine: 1 ms per prompt, 1 ms per decode step, nothing else unless a test says so. */
  private static GpuProfile.Builder tiny() {
    return GpuProfile.builder()
        .prefillBaseMillis(1)
        .prefillMillisPerToken(0)
        .prefillMillisPerTokenSquared(0)
        .decodeBaseMillis(1)
        .decodeMillisPerResidentToken(0)
        .decodeMillisPerSequence(0)
        .kvCapacityTokens(4096);
  }

  private static SimOptions.Builder gpu(GpuProfile.Builder profile) {
    GpuProfile built = profile.build();
    return SimOptions.builder().maxModelLen(Math.min(4096, built.kvCapacityTokens())).gpu(built);
  }

  private static String words(int n) {
    StringBuilder prompt = new StringBuilder();
    for (int i = 0; i < n; i++) {
      prompt.append(i == 0 ? "" : " ").append("w").append(i);
    }
    return prompt.toString();
  }

  /** One sample of the engine's {@code /metrics}, by name. */
  static double metric(SimEngine engine, String name) {
    for (String line : SimHttp.get(engine, "/metrics").body().split("\n")) {
      if (line.startsWith(name + "{")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError("no " + name + " in /metrics");
  }

  private static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  @Test
  void timeToFirstToken_growsWithPromptLength() {
    try (SimEngine engine = SimEngine.start(gpu(tiny().prefillMillisPerToken(2)).build())) {
      long[] ttft = new long[3];
      int[] lengths = {10, 100, 300};
      for (int i = 0; i < lengths.length; i++) {
        long started = System.nanoTime();
        HttpResponse<String> response = post(engine, "/v1/completions", completion(words(lengths[i]), 1, false));
        ttft[i] = millisSince(started);
        assertThat(response.statusCode()).isEqualTo(200);
        // Never faster than the prefill model: 1 + 2·L ms.
        assertThat(ttft[i]).isGreaterThanOrEqualTo(1 + 2L * lengths[i]);
      }
      assertThat(ttft[0]).isLessThan(ttft[1]);
      assertThat(ttft[1]).isLessThan(ttft[2]);
    }
  }

  @Test
  void concurrentStreams_slowEachOther() {
    // Every decode step costs 4 ms per sequence it serves.
    SimOptions options = gpu(tiny().decodeMillisPerSequence(4)).seed(3).build();
    try (SimEngine engine = SimEngine.start(options)) {
      long started = System.nanoTime();
      List<String> alone = sseData(post(engine, "/v1/completions", completion("alone", 20, true)).body());
      long aloneMillis = millisSince(started);
      assertThat(alone).hasSize(21);

      started = System.nanoTime();
      List<CompletableFuture<HttpResponse<String>>> streams = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        streams.add(SimHttp.CLIENT.sendAsync(request(engine, completion("prompt " + i, 20, true)),
            HttpResponse.BodyHandlers.ofString()));
      }
      for (int i = 0; i < 8; i++) {
        List<String> events = sseData(streams.get(i).join().body());
        assertThat(text(events)).isEqualTo(SimEngine.expectedText(3, "prompt " + i, 20));
      }
      long togetherMillis = millisSince(started);

      // 8 × 19 decoded tokens at 4 ms each at least, however the steps group them.
      assertThat(togetherMillis).isGreaterThanOrEqualTo(8 * 19 * 4);
      assertThat(aloneMillis).isLessThan(togetherMillis);
      assertThat(engine.gpuLoad().steps()).isGreaterThan(20);
    }
  }

  private static HttpRequest request(SimEngine engine, String json) {
    return HttpRequest.newBuilder(URI.create(engine.baseUrl() + "/v1/completions"))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json))
        .build();
  }

  private static String text(List<String> events) {
    StringBuilder text = new StringBuilder();
    for (String event : events) {
      if (!event.equals("[DONE]")) {
        text.append(json(event).path("choices").path(0).path("text").asText());
      }
    }
    return text.toString();
  }

  @Test
  void clientDisconnect_removesTheSequenceAndFreesItsKv() throws IOException {
    try (SimEngine engine = SimEngine.start(gpu(tiny().decodeBaseMillis(10)).build())) {
      try (RawSse raw = RawSse.post(engine.port(), "/v1/completions", completion(words(50), 1000, true)).readHead()) {
        assertThat(raw.nextData()).contains("\"text\"");
        assertThat(raw.nextData()).contains("\"text\"");
        assertThat(metric(engine, "vllm:num_requests_running")).isEqualTo(1);
        // The prompt and at least the two tokens sent.
        assertThat(metric(engine, "vllm:kv_cache_usage_perc")).isGreaterThanOrEqualTo(52.0 / 4096);
      }
      await("the sequence to leave the batch", () -> metric(engine, "vllm:num_requests_running") == 0);
      assertThat(metric(engine, "vllm:kv_cache_usage_perc")).isZero();
      assertThat(engine.stats().cancelledStreams()).isEqualTo(1);
    }
  }

  @Test
  void kvFullOfRunningWork_makesTheNextRequestWait() {
    // 128 KV tokens: a running 100-token prompt leaves no room for another.
    SimOptions options = gpu(tiny().kvCapacityTokens(128).decodeBaseMillis(20)).build();
    try (SimEngine engine = SimEngine.start(options)) {
      CompletableFuture<HttpResponse<String>> first =
          SimHttp.CLIENT.sendAsync(request(engine, completion(words(100), 20, false)), HttpResponse.BodyHandlers.ofString());
      await("the first to run", () -> metric(engine, "vllm:num_requests_running") == 1);
      CompletableFuture<HttpResponse<String>> second =
          SimHttp.CLIENT.sendAsync(request(engine, completion(words(100), 5, false)), HttpResponse.BodyHandlers.ofString());

      await("the second to wait", () -> metric(engine, "vllm:num_requests_waiting") == 1);
      assertThat(metric(engine, "vllm:num_requests_running")).isEqualTo(1);

      assertThat(first.join().statusCode()).isEqualTo(200);
      assertThat(second.join().statusCode()).isEqualTo(200);
      assertThat(metric(engine, "vllm:num_requests_waiting")).isZero();
    }
  }

  @Test
  void decodesOutgrowingTheKv_preemptTheNewest_whoseStreamPausesAndStillCompletes() {
    // 128 KV tokens, two 50-token prompts that grow to 120 each: they cannot both finish together.
    SimOptions options = gpu(tiny().kvCapacityTokens(128)).seed(9).build();
    try (SimEngine engine = SimEngine.start(options)) {
      List<CompletableFuture<HttpResponse<String>>> streams = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        streams.add(SimHttp.CLIENT.sendAsync(request(engine, completion("p" + i + " " + words(49), 70, true)),
            HttpResponse.BodyHandlers.ofString()));
      }
      for (int i = 0; i < 2; i++) {
        List<String> events = sseData(streams.get(i).join().body());
        assertThat(events).hasSize(71);
        assertThat(text(events)).isEqualTo(SimEngine.expectedText(9, "p" + i + " " + words(49), 70));
      }
      assertThat(metric(engine, "vllm:num_preemptions_total")).isGreaterThanOrEqualTo(1);
      assertThat(metric(engine, "vllm:kv_cache_usage_perc")).isZero();
    }
  }

  @Test
  void prefillLeg_keepsItsKvLeasedUntilTheDecodePullsIt() {
    try (SimEngine producer = SimEngine.start(gpu(tiny()).engineId("p").seed(5).build());
        SimEngine consumer = SimEngine.start(gpu(tiny()).engineId("d").seed(5).build())) {
      HttpResponse<String> prefill = post(producer, "/v1/completions", completion(words(20), 1, false, PREFILL_PARAMS));
      assertThat(prefill.statusCode()).isEqualTo(200);
      JsonNode kv = json(prefill.body()).get("kv_transfer_params");
      assertThat(kv.get("narwhal_sim_release_url").asText()).isEqualTo(producer.baseUrl() + "/narwhal/kv/release");
      // Finished, yet its prompt's KV (and its one token's) stays resident for the decode.
      assertThat(producer.gpuLoad().leases()).isEqualTo(1);
      assertThat(metric(producer, "vllm:kv_cache_usage_perc")).isEqualTo(21.0 / 4096);
      assertThat(metric(producer, "vllm:num_requests_running")).isZero();

      String decodeBody = completion(words(20), 3, false, "\"kv_transfer_params\":" + kv);
      HttpResponse<String> decode = post(consumer, "/v1/completions", decodeBody);

      assertThat(decode.statusCode()).isEqualTo(200);
      assertThat(json(decode.body()).path("choices").path(0).path("text").asText())
          .isEqualTo(SimEngine.expectedText(5, words(20), 3));
      assertThat(consumer.stats().kvPulls()).isEqualTo(1);
      await("the producer to free the pulled KV", () -> producer.gpuLoad().kvUsedTokens() == 0);
      assertThat(producer.gpuLoad().leases()).isZero();
      assertThat(consumer.gpuLoad().kvUsedTokens()).isZero();
    }
  }

  @Test
  void decodeInTheSimpleMode_tellsAGpuProducerToo_andSoDoesADecodeThatFails() {
    try (SimEngine producer = SimEngine.start(gpu(tiny()).seed(5).build());
        SimEngine consumer = SimEngine.start(SimOptions.builder().seed(5).interTokenMillis(1).build())) {
      JsonNode kv = json(post(producer, "/v1/completions", completion(words(20), 1, false, PREFILL_PARAMS)).body())
          .get("kv_transfer_params");
      assertThat(post(consumer, "/v1/completions", completion(words(20), 3, false, "\"kv_transfer_params\":" + kv))
          .statusCode()).isEqualTo(200);
      await("the producer to free the pulled KV", () -> producer.gpuLoad().kvUsedTokens() == 0);

      // A decode that fails before its first token still lets the producer free the blocks.
      kv = json(post(producer, "/v1/completions", completion(words(20), 1, false, PREFILL_PARAMS)).body())
          .get("kv_transfer_params");
      assertThat(producer.gpuLoad().leases()).isEqualTo(1);
      String failing = completion("[[sim:error-after=0]] " + words(19), 3, false, "\"kv_transfer_params\":" + kv);
      assertThat(post(consumer, "/v1/completions", failing).statusCode()).isEqualTo(500);
      await("the producer to free the KV of the failed decode", () -> producer.gpuLoad().kvUsedTokens() == 0);
    }
  }

  @Test
  void prefillLeg_whoseDecodeNeverComes_freesItsKvWhenTheLeaseEnds() {
    SimOptions options = gpu(tiny()).attest("kv_lease_duration_s", 0.3).build();
    try (SimEngine producer = SimEngine.start(options)) {
      HttpResponse<String> prefill = post(producer, "/v1/completions", completion(words(20), 1, false, PREFILL_PARAMS));
      assertThat(prefill.statusCode()).isEqualTo(200);
      long answered = System.nanoTime();
      assertThat(producer.gpuLoad().leasedKvTokens()).isEqualTo(21);

      await("the lease to end", () -> producer.gpuLoad().kvUsedTokens() == 0);
      assertThat(millisSince(answered)).isGreaterThanOrEqualTo(250);
    }
  }

  @Test
  void releaseEndpoint_answersWhetherTheLeaseWasHeld() {
    try (SimEngine producer = SimEngine.start(gpu(tiny()).build())) {
      JsonNode kv = json(post(producer, "/v1/completions", completion("x y", 1, false, PREFILL_PARAMS)).body())
          .get("kv_transfer_params");
      String release = "{\"remote_request_id\":" + kv.get("remote_request_id") + "}";

      assertThat(json(post(producer, "/narwhal/kv/release", release).body()).get("released").asBoolean()).isTrue();
      assertThat(json(post(producer, "/narwhal/kv/release", release).body()).get("released").asBoolean()).isFalse();
      assertThat(post(producer, "/narwhal/kv/release", "{}").statusCode()).isEqualTo(400);
      await("the KV freed", () -> producer.gpuLoad().kvUsedTokens() == 0);
    }
  }

  /** Engine steps without a token sent that make a stalled stream. */
  private static final int STALL_STEPS = 200;

  @Test
  void slowReader_keepsItsSlot_whileTheEngineServesEveryoneElse() throws IOException {
    // Steps that take no time: the engine outruns any socket.
    GpuProfile instant = tiny().decodeBaseMillis(0).prefillBaseMillis(0).kvCapacityTokens(250_000).build();
    SimOptions options = SimOptions.builder().maxModelLen(250_000).gpu(instant).build();
    try (SimEngine engine = SimEngine.start(options)) {
      try (RawSse parked = RawSse.post(engine.port(), "/v1/completions", completion("flood", 200_000, true))
          .readHead()) {
        // The client reads nothing more: the stream stops sending, yet the engine keeps stepping.
        // The engine's own steps are the clock: no token sent over many steps is a stall.
        long[] since = {-1, -1};
        await("the stream to stall while the engine runs on", () -> {
          long sent = engine.stats().generationTokens();
          long steps = engine.gpuLoad().steps();
          if (sent != since[0]) {
            since[0] = sent;
            since[1] = steps;
            return false;
          }
          return sent > 0 && steps - since[1] >= STALL_STEPS;
        });
        assertThat(engine.gpuLoad().running()).isEqualTo(1);

        HttpResponse<String> other = post(engine, "/v1/completions", completion("other", 5, true));
        assertThat(sseData(other.body())).hasSize(6);
        assertThat(parked.nextData()).contains("\"text\"");
      }
      await("the parked stream cancelled", () -> engine.stats().cancelledStreams() == 1);
      await("its KV freed", () -> engine.gpuLoad().kvUsedTokens() == 0);
    }
  }

  @Test
  void requestLongerThanTheContext_isRefusedAsVllmDoes() {
    SimOptions options = gpu(tiny().kvCapacityTokens(64)).build();
    try (SimEngine engine = SimEngine.start(options)) {
      HttpResponse<String> response = post(engine, "/v1/completions", completion(words(60), 10, false));

      assertThat(response.statusCode()).isEqualTo(400);
      JsonNode error = json(response.body()).get("error");
      assertThat(error.get("type").asText()).isEqualTo("BadRequestError");
      assertThat(error.get("param").asText()).isEqualTo("input_tokens");
      assertThat(error.get("message").asText()).startsWith("This model's maximum context length is 64 tokens.");
      assertThat(engine.gpuLoad().steps()).isZero();
    }
  }

  @Test
  void kvCacheSmallerThanTheContextLength_isRefusedAtStart() {
    assertThatThrownBy(() -> SimOptions.builder().maxModelLen(8192).gpu(tiny().kvCapacityTokens(4096).build()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the KV cache (kv_capacity_tokens 4096) must hold max_model_len (8192) tokens, as vLLM requires"
            + " at start: lower max_model_len or raise kv_capacity_tokens");
  }

  @Test
  void simpleMode_keepsItsOwnGaugesAndReportsNoPreemption() {
    try (SimEngine engine = SimEngine.start(SimOptions.builder().build())) {
      assertThat(engine.gpuLoad()).isNull();
      assertThat(metric(engine, "vllm:num_preemptions_total")).isZero();
      assertThat(metric(engine, "vllm:num_requests_running")).isZero();
    }
  }
}
