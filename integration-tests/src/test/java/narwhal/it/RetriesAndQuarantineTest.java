package narwhal.it;

import narwhal.testing.Poll;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import narwhal.config.FleetConfig;
import narwhal.sim.FaultPlan;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fresh attempts before output, exclusions, the shared budget's effect and quarantine, over real
 * HTTP against simulated engines told to misbehave. Each test runs its own fleet (engine faults
 * are installed per engine, so the other engines stay healthy) and checks what the client got,
 * what every engine received, the journal row, and that every reservation was released.
 */
class RetriesAndQuarantineTest {

  private static final String PROMPT = "retry me";
  private static final int MAX_TOKENS = 4;
  private static final List<String> ENGINES = List.of("p0", "p1", "d0", "d1");

  /** A completion body for {@link #PROMPT}. */
  private static String body(boolean stream) {
    ObjectNode body = RouterClient.JSON.createObjectNode();
    body.put("model", RoutedFleet.MODEL);
    body.put("prompt", PROMPT);
    body.put("max_tokens", MAX_TOKENS);
    body.put("stream", stream);
    return body.toString();
  }

  private static String expectedText(int tokens) {
    return SimEngine.expectedText(0, PROMPT, tokens);
  }

  /**
   * Two attempts, a quick backoff, short decode timeouts. The breaker is kept out of the way: one
   * test's single failure must not move engines for reasons that are BreakerTest's subject.
   */
  private static RoutedFleet retrying(int prefill, int decode, UnaryOperator<FleetConfig> more) {
    return RoutedFleet.start(prefill, decode, RoutedFleet.fastEngines().build(), c -> more.apply(c
        .withServing(c.serving().withMaxAttempts(2).withRetryBackoff(0.001, 0.01))
        .withEngine(c.engine().withFirstTokenTimeoutS(0.5).withDecodeReadTimeoutS(0.3))
        .withRecovery(c.recovery().withEjectAfter(1_000_000))), null);
  }

  private static RoutedFleet retrying() {
    return retrying(2, 2, c -> c);
  }

  private static String rid(HttpResponse<?> r) {
    return r.headers().firstValue("x-request-id").orElseThrow();
  }

  private static JsonNode row(RoutedFleet fleet, String rid) {
    return fleet.journal().awaitRow("rid " + rid, row -> rid.equals(row.path("rid").asText()));
  }

  /** How many requests each engine received, as "iid=n" in {@link #ENGINES} order. */
  private static List<String> receivedCounts(RoutedFleet fleet) {
    List<String> counts = new ArrayList<>();
    for (String iid : ENGINES) {
      counts.add(iid + "=" + fleet.engine(iid).received().size());
    }
    return counts;
  }

  /** The one failed attempt the row lists. */
  private static JsonNode onlyFailure(JsonNode row) {
    assertThat(row.path("attempt_failures")).as("attempt_failures of %s", row).hasSize(1);
    return row.path("attempt_failures").path(0);
  }

  /** A plain error response: status, the OpenAI envelope, the type. */
  private static JsonNode plainError(HttpResponse<String> r, int status, String type) {
    assertThat(r.statusCode()).as("status of %s", r.body()).isEqualTo(status);
    JsonNode error = json(r.body()).path("error");
    assertThat(error.path("type").asText()).isEqualTo(type);
    assertThat(error.has("param")).isTrue();
    return error;
  }

  /** A committed stream that failed: 200, output, one terminal error event last, no [DONE]. */
  private static JsonNode terminalError(RouterClient.SseResponse r, int status) {
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.data()).as("events").isNotEmpty().doesNotContain("[DONE]");
    assertThat(r.data().stream().filter(d -> json(d).has("error")).count()).as("error events").isEqualTo(1);
    JsonNode error = json(r.data().get(r.data().size() - 1)).path("error");
    assertThat(error.path("type").asText()).isEqualTo("decode");
    assertThat(error.path("param").isNull()).isTrue();
    assertThat(error.path("code").isInt()).isTrue();
    assertThat(error.path("code").intValue()).isEqualTo(status);
    return error;
  }

  // ---------------------------------------------------------------- retried before output

  @Test
  void transientPrefillFailure_retriesOnAnotherProducer() {
    try (RoutedFleet fleet = retrying()) {
      fleet.engine("p0").setFaults(FaultPlan.of("status=503"));

      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(true));

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.endsWithDone()).isTrue();
      assertThat(r.text()).isEqualTo(expectedText(MAX_TOKENS));
      assertThat(receivedCounts(fleet)).containsExactly("p0=1", "p1=1", "d0=1", "d1=0");
      // Fresh backend ids per attempt.
      assertThat(fleet.engine("p1").received().get(0).header("x-request-id"))
          .isNotEqualTo(fleet.engine("p0").received().get(0).header("x-request-id"));
      JsonNode row = row(fleet, r.requestId());
      assertThat(row.path("attempts").asInt()).isEqualTo(2);
      assertThat(row.path("prefill_iid").asText()).isEqualTo("p1");
      assertThat(onlyFailure(row).path("iid").asText()).isEqualTo("p0");
      assertThat(onlyFailure(row).path("retry_reason").asText()).isEqualTo("allowed");
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void decodeFailureBeforeOutput_retriesWithNewProducerAndNewConsumer() {
    try (RoutedFleet fleet = retrying()) {
      fleet.engine("d0").setFaults(FaultPlan.of("status=500"));

      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(true));

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.endsWithDone()).isTrue();
      // Attempt 1: p0 -> d0 (fails). Attempt 2 excludes both: p1 -> d1.
      assertThat(receivedCounts(fleet)).containsExactly("p0=1", "p1=1", "d0=1", "d1=1");
      assertThat(fleet.engine("d1").received().get(0).body().path("kv_transfer_params")
          .path("remote_engine_id").asText()).isEqualTo("sim-p1");
      assertThat(row(fleet, r.requestId()).path("attempts").asInt()).isEqualTo(2);
      fleet.assertReservationsReturnToZero();
    }
  }

  @ParameterizedTest(name = "stream={0}")
  @ValueSource(booleans = {true, false})
  void firstTokenTimeoutOnD0_isRetriedOnTheOtherPair(boolean stream) throws Exception {
    try (RoutedFleet fleet = retrying()) {
      fleet.engine("d0").setFaults(FaultPlan.of("silence-first=forever"));

      String rid;
      String text;
      if (stream) {
        RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(true));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.endsWithDone()).isTrue();
        assertThat(r.data()).noneMatch(d -> d.contains("\"error\""));
        rid = r.requestId();
        text = r.text();
      } else {
        HttpResponse<String> r = fleet.client.post("/v1/completions", body(false));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        rid = rid(r);
        text = json(r.body()).path("choices").path(0).path("text").asText();
      }

      assertThat(text).isEqualTo(expectedText(MAX_TOKENS));
      assertThat(receivedCounts(fleet)).containsExactly("p0=1", "p1=1", "d0=1", "d1=1");
      assertThat(fleet.engine("d1").received().get(0).body().path("kv_transfer_params")
          .path("remote_engine_id").asText()).isEqualTo("sim-p1");
      // The silent leg was closed, not left open on d0.
      Poll.until("d0 sees its silent stream cancelled", () -> fleet.engine("d0").stats().cancelledStreams() == 1);
      JsonNode row = row(fleet, rid);
      assertThat(row.path("terminal").asText()).isEqualTo("completed");
      assertThat(row.path("attempts").asInt()).isEqualTo(2);
      assertThat(row.path("prefill_iid").asText()).isEqualTo("p1");
      assertThat(row.path("decode_iid").asText()).isEqualTo("d1");
      JsonNode failure = onlyFailure(row);
      assertThat(failure.path("phase").asText()).isEqualTo("decode");
      assertThat(failure.path("iid").asText()).isEqualTo("d0");
      assertThat(failure.path("reason").asText()).isEqualTo("engine_timeout");
      assertThat(failure.path("message").asText())
          .isEqualTo("no first token within 500 ms from decode engine d0 (engine.first_token_timeout_s)");
      assertThat(failure.path("retry_reason").asText()).isEqualTo("allowed");
      fleet.assertReservationsReturnToZero();
    }
  }

  @ParameterizedTest(name = "{0} answers {1}")
  @CsvSource({"p0, 429", "p0, 408", "d0, 429", "d0, 408"})
  void engine429And408BeforeOutput_areRetried(String iid, int status) {
    try (RoutedFleet fleet = retrying()) {
      fleet.engine(iid).setFaults(FaultPlan.of("status=" + status + ",message=come back later"));

      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(true));

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.endsWithDone()).isTrue();
      assertThat(r.text()).isEqualTo(expectedText(MAX_TOKENS));
      // A prefill failure excludes the producer only; a decode failure excludes the pair.
      assertThat(receivedCounts(fleet)).containsExactlyElementsOf(iid.equals("p0")
          ? List.of("p0=1", "p1=1", "d0=1", "d1=0")
          : List.of("p0=1", "p1=1", "d0=1", "d1=1"));
      JsonNode row = row(fleet, r.requestId());
      assertThat(row.path("attempts").asInt()).isEqualTo(2);
      JsonNode failure = onlyFailure(row);
      assertThat(failure.path("iid").asText()).isEqualTo(iid);
      assertThat(failure.path("reason").asText()).isEqualTo("engine_overloaded");
      assertThat(failure.path("message").asText()).endsWith("answered HTTP " + status + ": come back later");
      fleet.assertReservationsReturnToZero();
    }
  }

  // ---------------------------------------------------------------- never retried

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "error-after=2,code=503,message=engine overloaded | 503 | decode engine d0 reported an error in its stream after 2 tokens: engine overloaded",
      "silence-after=2 | 504 | engine went silent between tokens"})
  void failureAfterOutputIsVisible_isNotRetried_streamEndsWithTheTerminalError(
      String fault, int status, String message) {
    try (RoutedFleet fleet = retrying()) {
      fleet.engine("d0").setFaults(FaultPlan.of(fault));

      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(true));

      JsonNode error = terminalError(r, status);
      assertThat(error.path("message").asText()).startsWith(message);
      assertThat(r.text()).isEqualTo(expectedText(2));
      // Nothing went to the other pair: no fresh attempt once output was visible.
      assertThat(receivedCounts(fleet)).containsExactly("p0=1", "p1=0", "d0=1", "d1=0");
      JsonNode row = row(fleet, r.requestId());
      assertThat(row.path("terminal").asText()).isEqualTo("failed");
      assertThat(row.path("attempts").asInt()).isEqualTo(1);
      assertThat(row.path("status").asInt()).isEqualTo(status);
      assertThat(row.path("output_len").asInt()).isEqualTo(2);
      assertThat(onlyFailure(row).path("retry_reason").asText()).isEqualTo("output_started");
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void failureAfterOutput_nonStreaming_isNotRetried_plainStatus() {
    try (RoutedFleet fleet = retrying()) {
      fleet.engine("d0").setFaults(FaultPlan.of("error-after=2,code=503,message=engine overloaded"));

      HttpResponse<String> r = fleet.client.post("/v1/completions", body(false));

      JsonNode error = plainError(r, 503, "decode");
      assertThat(error.path("message").asText())
          .isEqualTo("decode engine d0 reported an error in its stream after 2 tokens: engine overloaded");
      assertThat(receivedCounts(fleet)).containsExactly("p0=1", "p1=0", "d0=1", "d1=0");
      JsonNode row = row(fleet, rid(r));
      assertThat(row.path("attempts").asInt()).isEqualTo(1);
      assertThat(onlyFailure(row).path("retry_reason").asText()).isEqualTo("output_started");
      fleet.assertReservationsReturnToZero();
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"p0, prefill", "d0, decode"})
  void engineRejection400_isPassedThroughAndNotRetried(String iid, String phase) {
    try (RoutedFleet fleet = retrying()) {
      fleet.engine(iid).setFaults(FaultPlan.of("status=400,message=prompt is too long"));

      HttpResponse<String> r = fleet.client.post("/v1/completions", body(true));

      JsonNode error = plainError(r, 400, phase);
      assertThat(error.path("message").asText()).contains("prompt is too long");
      assertThat(receivedCounts(fleet)).containsExactlyElementsOf(iid.equals("p0")
          ? List.of("p0=1", "p1=0", "d0=0", "d1=0")
          : List.of("p0=1", "p1=0", "d0=1", "d1=0"));
      JsonNode row = row(fleet, rid(r));
      assertThat(row.path("attempts").asInt()).isEqualTo(1);
      assertThat(row.path("status").asInt()).isEqualTo(400);
      assertThat(onlyFailure(row).path("retry_reason").asText()).isEqualTo("non_transient");
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void noRetryByDefault() {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), c -> c, null)) {
      fleet.engine("p0").setFaults(FaultPlan.of("status=503"));

      HttpResponse<String> r = fleet.client.post("/v1/completions", body(false));

      JsonNode error = plainError(r, 502, "prefill");
      assertThat(error.path("message").asText()).startsWith("prefill engine p0 answered HTTP 503");
      assertThat(receivedCounts(fleet)).containsExactly("p0=1", "p1=0", "d0=0", "d1=0");
      assertThat(onlyFailure(row(fleet, rid(r))).path("retry_reason").asText()).isEqualTo("attempt_limit");
      fleet.assertReservationsReturnToZero();
    }
  }

  @ParameterizedTest(name = "stream={0}")
  @ValueSource(booleans = {true, false})
  void everyCapableEngineFailed_theRetryFallsBackToIt_andTheLastErrorIsReturned(boolean stream) {
    try (RoutedFleet fleet = retrying(1, 1, c -> c)) {
      fleet.engine("p0").setFaults(FaultPlan.of("status=503"));

      HttpResponse<String> r = fleet.client.post("/v1/completions", body(stream));

      // Avoiding an engine the request failed on is a preference that never empties a role: the
      // only producer gets the retry, and its second answer is what the client sees.
      JsonNode error = plainError(r, 502, "prefill");
      assertThat(error.path("message").asText()).startsWith("prefill engine p0 answered HTTP 503");
      assertThat(fleet.engine("p0").received()).hasSize(2);
      assertThat(fleet.engine("d0").received()).isEmpty();
      JsonNode row = row(fleet, rid(r));
      assertThat(row.path("reason").asText()).isEqualTo("engine_overloaded");
      assertThat(row.path("attempts").asInt()).isEqualTo(2);
      assertThat(row.path("first_failed_iid").asText()).isEqualTo("p0");
      assertThat(row.path("attempt_failures").path(1).path("retry_reason").asText()).isEqualTo("attempt_limit");
      fleet.assertReservationsReturnToZero();
    }
  }

  // ---------------------------------------------------------------- quarantine

  /** The engine's placement state as GET /narwhal/state reports it. */
  private static String stateOf(RoutedFleet fleet, String iid) {
    for (JsonNode e : json(fleet.client.get("/narwhal/state").body()).path("engines")) {
      if (e.path("iid").asText().equals(iid)) {
        return e.path("state").asText();
      }
    }
    throw new AssertionError("no engine " + iid + " in /narwhal/state");
  }

  /**
   * A failed engine sits out while its twin covers the role, then returns. The quarantine is 3 s:
   * short, yet long enough that the request right after the failure is surely placed inside it
   * on a busy machine; its end is polled, not slept for.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"p0, p1, d0", "d0, p0, d1"})
  void quarantine_failedEngineIsSkippedWhileItsTwinCovers_thenComesBack(
      String failing, String nextPrefill, String nextDecode) throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), c -> c
        .withRecovery(c.recovery().withFailureQuarantineS(3.0).withEjectAfter(1_000_000)), null)) {
      fleet.engine(failing).setFaults(FaultPlan.of("status=500,count=1"));

      HttpResponse<String> failed = fleet.client.post("/v1/completions", body(false));
      assertThat(failed.statusCode()).isEqualTo(502);
      assertThat(stateOf(fleet, failing)).isEqualTo("quarantined");
      fleet.clearReceived();

      // Without quarantine the tie on iid would pick p0 and d0 again.
      HttpResponse<String> covered = fleet.client.post("/v1/completions", body(false));
      assertThat(covered.statusCode()).isEqualTo(200);
      assertThat(fleet.engine(failing).received()).isEmpty();
      assertThat(fleet.engine(nextPrefill).received()).hasSize(1);
      assertThat(fleet.engine(nextDecode).received()).hasSize(1);

      Poll.until(failing + " back in placement", () -> stateOf(fleet, failing).equals("active"));
      fleet.clearReceived();
      HttpResponse<String> back = fleet.client.post("/v1/completions", body(false));
      assertThat(back.statusCode()).isEqualTo(200);
      assertThat(fleet.engine("p0").received()).hasSize(1);
      assertThat(fleet.engine("d0").received()).hasSize(1);
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void quarantine_engineRejection400_keepsTheEngineInPlacement() {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), c -> c
        .withRecovery(c.recovery().withFailureQuarantineS(30)), null)) {
      fleet.engine("p0").setFaults(FaultPlan.of("status=400,count=1,message=prompt is too long"));

      assertThat(fleet.client.post("/v1/completions", body(false)).statusCode()).isEqualTo(400);
      assertThat(stateOf(fleet, "p0")).isEqualTo("active");

      // The client's bad request said nothing about p0's health: it keeps serving.
      assertThat(fleet.client.post("/v1/completions", body(false)).statusCode()).isEqualTo(200);
      assertThat(fleet.engine("p0").received()).hasSize(2);
      assertThat(fleet.engine("p1").received()).isEmpty();
      fleet.assertReservationsReturnToZero();
    }
  }
}
