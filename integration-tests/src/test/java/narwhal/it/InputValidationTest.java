package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every row of the input-validation table over real HTTP: the status, the OpenAI envelope (with
 * {@code param} naming the field), and the journal's {@code invalid} row for the same request id.
 */
class InputValidationTest {

  private static final long MAX_REQUEST_BYTES = 2048;
  private static final long MAX_RESPONSE_BYTES = 2048;

  @TempDir static Path dir;
  private static RoutedFleet fleet;
  private static JournalFile journal;

  @BeforeAll
  static void start() {
    journal = new JournalFile(dir.resolve("journal.jsonl"));
    fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c.withServing(c.serving()
        .withMaxRequestBytes(MAX_REQUEST_BYTES).withMaxResponseBytes(MAX_RESPONSE_BYTES)), journal.path());
  }

  @AfterAll
  static void stop() {
    fleet.close();
  }

  /** Asserts the envelope and the journal row; returns the envelope's inner error. */
  private static JsonNode assertRefused(HttpResponse<String> r, int status, String type, @Nullable String param,
      @Nullable String code) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonNode error = json(r.body()).path("error");
    assertThat(error.path("type").asText()).isEqualTo(type);
    assertThat(error.path("message").asText()).isNotBlank();
    assertThat(error.has("param")).isTrue();
    assertThat(error.path("param").isNull() ? null : error.path("param").asText()).isEqualTo(param);
    assertThat(error.path("code").isNull() ? null : error.path("code").asText()).isEqualTo(code);
    String rid = r.headers().firstValue("x-request-id").orElseThrow();
    journal.awaitRequestRows(1);
    JsonNode row = awaitRow(rid);
    assertThat(row.path("terminal").asText()).isEqualTo("invalid");
    assertThat(row.path("status").asInt()).isEqualTo(status);
    assertThat(row.path("error_type").asText()).isEqualTo(type);
    assertThat(row.path("run").asText()).isEqualTo(fleet.router.router().runId());
    return error;
  }

  private static JsonNode awaitRow(String rid) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      for (JsonNode row : journal.rows()) {
        if (rid.equals(row.path("rid").asText())) {
          return row;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no journal row for " + rid);
      }
      Thread.onSpinWait();
    }
  }

  @Test
  void malformedJson_is400WithoutParam() {
    JsonNode error = assertRefused(fleet.client.post("/v1/completions", "{\"model\": \"narwhal-sim\", \"prompt\": "),
        400, "invalid_request_error", null, null);
    assertThat(error.path("message").asText()).contains("not valid JSON").contains("line 1");
  }

  @Test
  void nonObjectBody_is400() {
    JsonNode error = assertRefused(fleet.client.post("/v1/completions", "[1, 2, 3]"),
        400, "invalid_request_error", null, null);
    assertThat(error.path("message").asText()).contains("must be a JSON object");
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', value = {
      "/v1/completions      | \"model\": 5, \"prompt\": \"x\"                     | model",
      "/v1/completions      | \"stream\": \"yes\", \"prompt\": \"x\"                | stream",
      "/v1/completions      | \"n\": \"2\", \"prompt\": \"x\"                       | n",
      "/v1/completions      | \"best_of\": true, \"prompt\": \"x\"                  | best_of",
      "/v1/completions      | \"max_tokens\": 1.5, \"prompt\": \"x\"                | max_tokens",
      "/v1/completions      | \"max_tokens\": true, \"prompt\": \"x\"               | max_tokens",
      "/v1/completions      | \"prompt\": 5                                         | prompt",
      "/v1/chat/completions | \"messages\": \"hi\"                                  | messages",
      "/v1/chat/completions | \"messages\": [1]                                     | messages[0]",
      "/v1/completions      | \"prompt\": \"x\", \"vllm_xargs\": {\"kv_transfer_params\": {}} | vllm_xargs",
      "/v1/completions      | \"prompt\": \"x\", \"vllm_xargs\": {\"ec_transfer_params\": 1} | vllm_xargs",
      "/v1/chat/completions | \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"audio\": {\"voice\": \"a\"} | audio",
      "/v1/chat/completions | \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"modalities\": [\"audio\"] | modalities",
      "/v1/chat/completions | \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"tools\": [{\"type\": \"retrieval\"}] | tools[0].type",
  })
  void wrongFieldOrForbiddenValue_is400NamingTheField(String path, String fields, String param) {
    assertRefused(fleet.client.post(path, "{" + fields + "}"), 400, "invalid_request_error", param, null);
  }

  @ParameterizedTest
  @CsvSource({"n, 2", "best_of, 3"})
  void moreThanOneChoice_is400(String field, int value) {
    JsonNode error = assertRefused(fleet.client.post("/v1/completions",
        "{\"prompt\": \"x\", \"" + field + "\": " + value + "}"), 400, "invalid_request_error", field, null);
    assertThat(error.path("message").asText()).contains("must be 1");
  }

  @Test
  void anotherModel_is404ModelNotFound() {
    JsonNode error = assertRefused(fleet.client.post("/v1/completions", "{\"model\": \"gpt-4\", \"prompt\": \"x\"}"),
        404, "invalid_request_error", "model", "model_not_found");
    assertThat(error.path("message").asText()).contains("gpt-4").contains("narwhal-sim");
  }

  @Test
  void emptyModelName_is404ModelNotFound_likeAnyUnknownModel() {
    fleet.fleet.engines().forEach(narwhal.sim.SimEngine::clearReceived);
    assertRefused(fleet.client.post("/v1/completions", "{\"model\": \"\", \"prompt\": \"x\"}"),
        404, "invalid_request_error", "model", "model_not_found");
    assertThat(fleet.fleet.engines()).allSatisfy(e -> assertThat(e.received()).isEmpty());
  }

  /** vLLM requires a token limit of at least 1; a 0 must not reach an engine (which ends at once). */
  @ParameterizedTest
  @CsvSource({"max_tokens, 0, false", "max_tokens, 0, true", "max_tokens, -2, true", "max_completion_tokens, 0, false"})
  void tokenLimitBelowOne_is400_andNoEngineSeesIt(String field, int value, boolean stream) {
    fleet.fleet.engines().forEach(narwhal.sim.SimEngine::clearReceived);
    JsonNode error = assertRefused(fleet.client.post("/v1/chat/completions",
        "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"stream\": " + stream + ", \""
            + field + "\": " + value + "}"), 400, "invalid_request_error", field, null);
    assertThat(error.path("message").asText()).isEqualTo(field + " must be at least 1, got " + value + ".");
    assertThat(fleet.fleet.engines()).allSatisfy(e -> assertThat(e.received()).isEmpty());
  }

  @Test
  void bodyOverTheLimit_withContentLength_is413() {
    String big = "{\"prompt\": \"" + "x".repeat((int) MAX_REQUEST_BYTES) + "\"}";
    assertRefused(fleet.client.post("/v1/completions", big), 413, "request_too_large", null, null);
  }

  @Test
  void bodyOverTheLimit_chunked_is413() throws Exception {
    byte[] big = ("{\"prompt\": \"" + "x".repeat((int) MAX_REQUEST_BYTES) + "\"}").getBytes(StandardCharsets.UTF_8);
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + fleet.router.port() + "/v1/completions"))
        .timeout(Duration.ofSeconds(10))
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertRefused(r, 413, "request_too_large", null, null);
  }

  @Test
  void bodyOverTheLimit_isRefusedOnItsHeaders_beforeAByteOfItIsSent() {
    try (RawHttp raw = new RawHttp(fleet.router.port())) {
      raw.sendHeaders("/v1/completions", 50L << 20);

      RawHttp.Response r = raw.readResponse();

      assertThat(r.status()).isEqualTo(413);
      assertThat(json(r.body()).path("error").path("type").asText()).isEqualTo("request_too_large");
      assertThat(awaitRow(r.header("x-request-id")).path("terminal").asText()).isEqualTo("invalid");
    }
  }

  @Test
  void responseOverTheLimit_is502_andJournalsFailedResponseLimit() {
    HttpResponse<String> r = fleet.client.post("/v1/completions",
        "{\"prompt\": \"tell me everything\", \"max_tokens\": 1000}");

    assertThat(r.statusCode()).isEqualTo(502);
    JsonNode error = json(r.body()).path("error");
    assertThat(error.path("type").asText()).isEqualTo("decode");
    assertThat(error.path("message").asText()).contains("serving.max_response_bytes");
    JsonNode row = awaitRow(r.headers().firstValue("x-request-id").orElseThrow());
    assertThat(row.path("terminal").asText()).isEqualTo("failed");
    assertThat(row.path("reason").asText()).isEqualTo("response_limit");
    assertThat(row.path("status").asInt()).isEqualTo(502);
    fleet.assertReservationsReturnToZero();
    assertThat(fleet.router.router().admission().inFlight()).isZero();
  }

  @Test
  void aValidRequest_afterAllThat_isServed() {
    HttpResponse<String> r = fleet.client.post("/v1/completions", "{\"prompt\": \"hello\", \"max_tokens\": 3}");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(awaitRow(r.headers().firstValue("x-request-id").orElseThrow()).path("terminal").asText())
        .isEqualTo("completed");
  }
}
