package narwhal.it;

import narwhal.testing.Poll;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code narwhal serve} as its own process, routing between two {@code narwhal sim} engine
 * processes (one prefill, one decode) over real sockets: the deployment shape of a real fleet,
 * minus the GPUs. Nothing here reaches into another JVM; what the engines did is read from their
 * own HTTP endpoints ({@code /admin/stats}) or, where the wire itself is the point, from a
 * {@link WireTap} placed between the router and an engine.
 */
class ServeProcessesTest {

  private static final Pattern SIM_URL = Pattern.compile("serving '[^']*' on (http://\\S+)");
  private static final Pattern SERVE_URL = Pattern.compile("narwhal: serving (http://\\S+)");
  /** Cold JVMs on a shared two-core machine: generous, and returns as soon as the line appears. */
  private static final Duration STARTUP = Duration.ofSeconds(40);
  private static final String MODEL = "narwhal-sim";

  private static ChildProcess prefillSim;
  private static ChildProcess decodeSim;
  private static String prefillUrl;
  private static String decodeUrl;

  @BeforeAll
  static void startEngines() throws InterruptedException {
    // Both start before either is awaited, so the two JVMs boot side by side.
    prefillSim = ChildProcess.narwhal("sim-p0", "sim", "--port", "0", "--engine-id", "engine-p0", "--model", MODEL,
        "--itl-ms", "2");
    decodeSim = ChildProcess.narwhal("sim-d0", "sim", "--port", "0", "--engine-id", "engine-d0", "--model", MODEL,
        "--itl-ms", "2");
    prefillUrl = prefillSim.awaitLine(SIM_URL, STARTUP);
    decodeUrl = decodeSim.awaitLine(SIM_URL, STARTUP);
  }

  @AfterAll
  static void stopEngines() throws InterruptedException {
    if (prefillSim != null) {
      prefillSim.close();
    }
    if (decodeSim != null) {
      decodeSim.close();
    }
  }

  @Test
  void serve_streamsCompletionAndAssemblesChat_acrossEngineProcesses_andJournalsBoth(@TempDir Path dir)
      throws Exception {
    // In a directory that does not exist yet, as the README's first --journal runs/journal.jsonl: serve makes it.
    Path journal = dir.resolve("runs/journal.jsonl");
    // Default preflight (enforce): serve probes both engines and the p0 -> d0 transfer first.
    try (ChildProcess serve = serve(fleetFile(dir, prefillUrl, decodeUrl), journal)) {
      RouterClient client = new RouterClient(serve.awaitLine(SERVE_URL, STARTUP));
      JsonNode prefillBefore = stats(prefillUrl);
      JsonNode decodeBefore = stats(decodeUrl);

      RouterClient.SseResponse stream = client.stream("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"Tell me about narwhals\",\"max_tokens\":8,\"stream\":true}");
      HttpResponse<String> chat = client.post("/v1/chat/completions",
          "{\"model\":\"narwhal-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"Where do narwhals live?\"}],"
              + "\"max_tokens\":5}");

      assertThat(stream.status()).as(serve.output()).isEqualTo(200);
      assertThat(stream.contentType()).startsWith("text/event-stream");
      assertThat(stream.endsWithDone()).isTrue();
      assertThat(stream.chunks()).hasSize(8)
          .allSatisfy(c -> assertThat(c.path("object").asText()).isEqualTo("text_completion"));
      // Exactly the decode engine's tokens: the prefill leg's one token never reaches the client.
      assertThat(stream.text()).isEqualTo(SimEngine.expectedText(0, "Tell me about narwhals", 8));

      assertThat(chat.statusCode()).as(chat.body()).isEqualTo(200);
      JsonNode body = json(chat.body());
      assertThat(body.path("object").asText()).isEqualTo("chat.completion");
      assertThat(body.path("choices").path(0).path("message").path("role").asText()).isEqualTo("assistant");
      assertThat(body.path("choices").path(0).path("message").path("content").asText())
          .isEqualTo(SimEngine.expectedText(0, "Where do narwhals live?", 5));
      assertThat(body.path("choices").path(0).path("finish_reason").asText()).isEqualTo("length");
      assertThat(body.path("usage").path("completion_tokens").asInt()).isEqualTo(5);

      // Counted from after startup, so preflight's probes don't count.
      JsonNode prefill = delta(prefillBefore, stats(prefillUrl));
      JsonNode decode = delta(decodeBefore, stats(decodeUrl));
      assertThat(prefill.path("requests").asLong()).as("prefill engine: %s", prefill).isEqualTo(2);
      assertThat(prefill.path("prefills").asLong()).as("both legs asked for a remote decode").isEqualTo(2);
      assertThat(prefill.path("generation_tokens").asLong()).as("one token per prefill leg").isEqualTo(2);
      assertThat(prefill.path("kv_pulls").asLong()).isZero();
      assertThat(decode.path("requests").asLong()).as("decode engine: %s", decode).isEqualTo(2);
      assertThat(decode.path("kv_pulls").asLong()).as("each decode pulled the producer's KV").isEqualTo(2);
      assertThat(decode.path("prefills").asLong()).isZero();
      assertThat(decode.path("generation_tokens").asLong()).isEqualTo(8 + 5);

      JournalFile rows = new JournalFile(journal);
      List<JsonNode> requests = rows.awaitRequestRows(2);
      assertThat(rows.rows().get(0).path("kind").asText()).isEqualTo("meta");
      assertThat(rows.rows().get(0).path("schema").asText()).isEqualTo("narwhal.journal");
      assertThat(requests).hasSize(2);
      assertThat(rows.row(stream.requestId())).isNotNull();
      assertThat(rows.row(chat.headers().firstValue("x-request-id").orElseThrow())).isNotNull();
      for (JsonNode row : requests) {
        assertThat(row.path("terminal").asText()).as("%s", row).isEqualTo("completed");
        assertThat(row.path("status").asInt()).isEqualTo(200);
        assertThat(row.path("prefill_iid").asText()).isEqualTo("p0");
        assertThat(row.path("decode_iid").asText()).isEqualTo("d0");
        assertThat(row.path("crossed").asBoolean()).isTrue();
        assertThat(row.path("ttft_s").asDouble()).isPositive();
        assertThat(row.path("ttft_s").asDouble()).isLessThanOrEqualTo(row.path("first_byte_s").asDouble());
      }
    }
  }

  @Test
  void serve_onTheWire_prefillIsOneTokenNonStreaming_decodeGetsProducerParamsVerbatim(@TempDir Path dir)
      throws Exception {
    try (WireTap prefillTap = new WireTap(prefillUrl);
        WireTap decodeTap = new WireTap(decodeUrl);
        // No preflight: the taps then see only this test's request.
        ChildProcess serve = serve(fleetFile(dir, prefillTap.url(), decodeTap.url()), dir.resolve("journal.jsonl"),
            "--preflight=off")) {
      RouterClient client = new RouterClient(serve.awaitLine(SERVE_URL, STARTUP));
      long pullsBefore = stats(decodeUrl).path("kv_pulls").asLong();

      String prompt = "Where do narwhals winter?";
      RouterClient.SseResponse r = client.stream("/v1/completions", "{\"model\":\"narwhal-sim\",\"prompt\":\""
          + prompt + "\",\"max_tokens\":6,\"temperature\":0.5,\"seed\":11,\"min_tokens\":2,\"stream\":true,"
          + "\"stream_options\":{\"include_usage\":true},"
          + "\"kv_transfer_params\":{\"do_remote_prefill\":true,\"remote_engine_id\":\"client-made-up\"}}");

      assertThat(r.status()).as(serve.output()).isEqualTo(200);
      assertThat(r.endsWithDone()).isTrue();
      assertThat(r.text()).isEqualTo(SimEngine.expectedText(0, prompt, 6));
      Poll.until("both legs recorded", () -> legs(prefillTap).size() == 1 && legs(decodeTap).size() == 1);

      // Nothing prices with a count on this unprofiled fleet, so the producer is not asked for one
      // (PredictiveAdmissionTest has the count on the wire); each engine saw its leg and nothing else.
      assertThat(prefillTap.exchanges()).as("no /tokenize: nothing prices with the count").hasSize(1);
      assertThat(decodeTap.exchanges()).hasSize(1);
      WireTap.Exchange prefill = legs(prefillTap).get(0);
      assertThat(prefill.path()).isEqualTo("/v1/completions");
      assertThat(prefill.body().path("stream").asBoolean(true)).isFalse();
      assertThat(prefill.body().path("max_tokens").asInt()).isEqualTo(1);
      assertThat(prefill.body().has("stream_options")).isFalse();
      assertThat(prefill.body().has("min_tokens")).isFalse();
      assertThat(prefill.body().path("prompt").asText()).isEqualTo(prompt);
      assertThat(prefill.body().get("kv_transfer_params")).isEqualTo(json("{\"do_remote_decode\":true,"
          + "\"do_remote_prefill\":false,\"remote_engine_id\":null,\"remote_block_ids\":null,"
          + "\"remote_host\":null,\"remote_port\":null}"));
      assertThat(prefill.status()).isEqualTo(200);
      JsonNode producerParams = prefill.responseJson().get("kv_transfer_params");
      assertThat(producerParams.path("remote_engine_id").asText()).isEqualTo("engine-p0");

      WireTap.Exchange decode = legs(decodeTap).get(0);
      assertThat(decode.path()).isEqualTo("/v1/completions");
      assertThat(decode.body().get("kv_transfer_params")).as("the producer's params, verbatim")
          .isEqualTo(producerParams);
      ObjectNode clientFields = (ObjectNode) json("{\"prompt\":\"" + prompt + "\",\"max_tokens\":6,"
          + "\"temperature\":0.5,\"seed\":11,\"min_tokens\":2,\"stream\":true,"
          + "\"stream_options\":{\"include_usage\":true}}");
      clientFields.fields().forEachRemaining(f ->
          assertThat(decode.body().get(f.getKey())).as(f.getKey()).isEqualTo(f.getValue()));
      assertThat(prefill.requestId()).isNotBlank();
      assertThat(decode.requestId()).isNotBlank().isNotEqualTo(prefill.requestId());
      assertThat(stats(decodeUrl).path("kv_pulls").asLong() - pullsBefore).isEqualTo(1);
    }
  }

  /** The inference legs a tap saw: its exchanges under {@code /v1/} (prompt counts left out). */
  private static List<WireTap.Exchange> legs(WireTap tap) {
    return tap.exchanges().stream().filter(e -> e.path().startsWith("/v1/")).toList();
  }

  private static ChildProcess serve(Path fleet, Path journal, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("serve", "--fleet", fleet.toString(), "--host", "127.0.0.1",
        "--port", "0", "--grpc-port", "0", "--journal", journal.toString()));
    args.addAll(List.of(more));
    return ChildProcess.narwhal("serve", args.toArray(String[]::new));
  }

  /**
   * A one-prefill, one-decode fleet. The timeouts are roomier than production's because the
   * first request through a cold JVM pays for class loading; they bound waits, never pace them.
   */
  private static Path fleetFile(Path dir, String prefill, String decode) throws IOException {
    Path file = dir.resolve("fleet.json");
    Files.writeString(file, String.join("\n",
        "{",
        "  \"schema\": \"narwhal.fleet\",",
        "  \"schema_version\": 1,",
        "  \"model\": \"" + MODEL + "\",",
        "  \"engines\": [",
        "    {\"iid\": \"p0\", \"url\": \"" + prefill + "\", \"role\": \"prefill\"},",
        "    {\"iid\": \"d0\", \"url\": \"" + decode + "\", \"role\": \"decode\"}",
        "  ],",
        "  \"slo\": {\"ttft_s\": 2.0, \"tpot_s\": 0.1},",
        // Open admission: this fleet is not profiled, and the relay is what these tests are about.
        "  \"serving\": {\"admission\": \"open\", \"prefill_timeout_s\": 30},",
        "  \"engine\": {\"first_token_timeout_s\": 30}",
        "}"));
    return file;
  }

  private static JsonNode stats(String engineUrl) {
    HttpResponse<String> r = new RouterClient(engineUrl).get("/admin/stats");
    assertThat(r.statusCode()).isEqualTo(200);
    return json(r.body());
  }

  private static JsonNode delta(JsonNode before, JsonNode after) {
    ObjectNode d = RouterClient.JSON.createObjectNode();
    after.fields().forEachRemaining(f -> d.put(f.getKey(), f.getValue().asLong() - before.path(f.getKey()).asLong()));
    return d;
  }
}
