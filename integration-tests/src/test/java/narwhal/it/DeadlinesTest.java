package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import narwhal.config.EngineContract;
import narwhal.sim.FaultPlan;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

/** The request's own deadline and the KV handoff bound, in real (short) time. */
class DeadlinesTest {

  private static String body(String directive, boolean stream) {
    return request(prompt(directive), stream);
  }

  private static String prompt(String directive) {
    return "late [[sim:" + directive + "]]";
  }

  private static String request(String prompt, boolean stream) {
    return "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":6,"
        + "\"stream\":" + stream + "}";
  }

  /** One prefill and one decode engine; 500 ms first-token budget, 300 ms silence bound, 500 ms prefill. */
  private static RoutedFleet shortTimeouts() {
    return RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
        .withEngine(c.engine().withFirstTokenTimeoutS(0.5).withDecodeReadTimeoutS(0.3))
        .withServing(c.serving().withPrefillTimeoutS(0.5)), null);
  }

  private static JsonNode errorOf(HttpResponse<String> r) {
    return json(r.body()).path("error");
  }

  @Test
  void headerDelayAndFirstTokenSilence_spendOneFirstTokenBudget() {
    // 700 ms before the response head plus 700 ms before the first token: each alone fits the
    // 1.2 s budget (with 500 ms to spare on a loaded machine), together they do not, because the
    // budget starts before the connection opens.
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
        .withEngine(c.engine().withFirstTokenTimeoutS(1.2)), null)) {
      String both = "[[sim:delay-headers=700,phase=decode]] [[sim:silence-first=700,phase=decode]] budget";
      HttpResponse<String> r = fleet.client.post("/v1/completions", request(both, true));
      assertThat(r.statusCode()).isEqualTo(504);
      assertThat(errorOf(r).path("type").asText()).isEqualTo("decode");
      assertThat(errorOf(r).path("message").asText())
          .isEqualTo("no first token within 1.2 s from decode engine d0 (engine.first_token_timeout_s)");
      assertThat(fleet.engine("d0").received()).hasSize(1);
      fleet.assertReservationsReturnToZero();

      HttpResponse<String> headersOnly = fleet.client.post("/v1/completions",
          request("[[sim:delay-headers=700,phase=decode]] budget", false));
      assertThat(headersOnly.statusCode()).isEqualTo(200);
      HttpResponse<String> silenceOnly = fleet.client.post("/v1/completions",
          request("[[sim:silence-first=700,phase=decode]] budget", false));
      assertThat(silenceOnly.statusCode()).isEqualTo(200);
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void silentFirstToken_nonStreaming_isPlain504() {
    try (RoutedFleet fleet = shortTimeouts()) {
      HttpResponse<String> r = fleet.client.post("/v1/completions", body("silence-first=forever,phase=decode", false));
      assertThat(r.statusCode()).isEqualTo(504);
      assertThat(errorOf(r).path("type").asText()).isEqualTo("decode");
      assertThat(errorOf(r).path("message").asText())
          .isEqualTo("no first token within 500 ms from decode engine d0 (engine.first_token_timeout_s)");
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void metadataChunksDuringSilence_nonStreaming_keepTheRequestAlive() {
    try (RoutedFleet fleet = shortTimeouts()) {
      // 700 ms of silence after two tokens would break the 300 ms bound, but an empty-text chunk
      // every 100 ms resets it: the request completes with all six tokens.
      String directive = "silence-after=2,ms=700,metadata-every=100,phase=decode";
      HttpResponse<String> r = fleet.client.post("/v1/completions", body(directive, false));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(json(r.body()).path("choices").path(0).path("text").asText())
          .isEqualTo(String.join("", SimEngine.expectedTokens(0, prompt(directive), 6)));
      assertThat(fleet.engine("d0").received()).hasSize(1);
      fleet.assertReservationsReturnToZero();
    }
  }

  private static final String SILENT_WITH_COMMENTS = "silence-after=2,ms=900,comments=100,phase=decode";
  private static final String SILENT = "silence-after=2,ms=900,phase=decode";
  private static final String SILENCE_BOUND_MESSAGE = "engine went silent between tokens: decode engine d0 sent "
      + "nothing for 300 ms after 2 tokens (engine.decode_read_timeout_s)";

  @Test
  void keepAliveCommentsDuringSilence_streaming_keepTheRequestAlive() {
    try (RoutedFleet fleet = shortTimeouts()) {
      // 900 ms of silence after two tokens breaks the 300 ms bound; an SSE comment line every
      // 100 ms completes no event, yet shows the engine is still sending, so it resets the bound.
      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body(SILENT_WITH_COMMENTS, true));
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.endsWithDone()).isTrue();
      assertThat(r.data()).noneMatch(d -> d.contains("\"error\""));
      assertThat(r.text()).isEqualTo(String.join("", SimEngine.expectedTokens(0, prompt(SILENT_WITH_COMMENTS), 6)));
      assertThat(fleet.engine("d0").received()).hasSize(1);
      fleet.assertReservationsReturnToZero();

      // Control: the same silence without comments ends at the bound.
      RouterClient.SseResponse silent = fleet.client.stream("/v1/completions", body(SILENT, true));
      assertThat(silent.status()).isEqualTo(200);
      assertThat(silent.endsWithDone()).isFalse();
      JsonNode last = json(silent.data().get(silent.data().size() - 1)).path("error");
      assertThat(last.path("code").asInt()).isEqualTo(504);
      assertThat(last.path("message").asText()).isEqualTo(SILENCE_BOUND_MESSAGE);
      assertThat(silent.text()).isEqualTo(String.join("", SimEngine.expectedTokens(0, prompt(SILENT), 2)));
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void keepAliveCommentsDuringSilence_nonStreaming_keepTheRequestAlive() {
    try (RoutedFleet fleet = shortTimeouts()) {
      HttpResponse<String> r = fleet.client.post("/v1/completions", body(SILENT_WITH_COMMENTS, false));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(json(r.body()).path("choices").path(0).path("text").asText())
          .isEqualTo(String.join("", SimEngine.expectedTokens(0, prompt(SILENT_WITH_COMMENTS), 6)));
      assertThat(fleet.engine("d0").received()).hasSize(1);
      fleet.assertReservationsReturnToZero();

      // Control: the same silence without comments is a plain 504 naming the silence bound.
      HttpResponse<String> silent = fleet.client.post("/v1/completions", body(SILENT, false));
      assertThat(silent.statusCode()).isEqualTo(504);
      assertThat(errorOf(silent).path("type").asText()).isEqualTo("decode");
      assertThat(errorOf(silent).path("message").asText()).isEqualTo(SILENCE_BOUND_MESSAGE);
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void requestDeadline_nonStreaming_boundsASilentStreamWhenTheReadTimeoutIsOff() {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
        .withEngine(c.engine().withDecodeReadTimeoutS(0))
        .withServing(c.serving().withRequestTimeoutS(0.6)), null)) {
      HttpResponse<String> r = fleet.client.post("/v1/completions", body("silence-after=2,phase=decode", false));
      assertThat(r.statusCode()).isEqualTo(504);
      assertThat(errorOf(r).path("message").asText())
          .isEqualTo("request deadline of 600 ms (serving.request_timeout_s) passed after 2 tokens");
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void prefillTimeout_nonStreaming_is504NamingServingPrefillTimeout() {
    try (RoutedFleet fleet = shortTimeouts()) {
      HttpResponse<String> r = fleet.client.post("/v1/completions", body("delay-headers=900,phase=prefill", false));
      assertThat(r.statusCode()).isEqualTo(504);
      assertThat(errorOf(r).path("type").asText()).isEqualTo("prefill");
      assertThat(errorOf(r).path("message").asText())
          .isEqualTo("prefill engine p0 did not answer within 500 ms (serving.prefill_timeout_s)");
      assertThat(fleet.engine("d0").received()).isEmpty();
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void requestDeadline_boundsTheStreamWhenTheReadTimeoutIsOff() {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
        .withEngine(c.engine().withDecodeReadTimeoutS(0))
        .withServing(c.serving().withRequestTimeoutS(0.6)), null)) {
      // Silent after two tokens with no silence bound: only the request deadline can end it.
      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", body("silence-after=2,phase=decode", true));
      assertThat(r.status()).isEqualTo(200);
      JsonNode last = json(r.data().get(r.data().size() - 1));
      assertThat(last.path("error").path("code").asInt()).isEqualTo(504);
      assertThat(last.path("error").path("message").asText()).contains("request deadline");

      HttpResponse<String> before = fleet.client.post("/v1/completions",
          body("silence-first=forever,phase=decode", true).replace("late", "early"));
      // The first-token timeout (2.5 s) is longer than the deadline: the deadline answers first.
      assertThat(before.statusCode()).isEqualTo(504);
      assertThat(json(before.body()).path("error").path("type").asText()).isEqualTo("request_expired");
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void expiredHandoff_isNotUsed_and504HandoffExpiredWhenNoAttemptRemains() {
    // A 12 ms lease bounds the handoff at 12 ms; the producer takes 100 ms to answer.
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
        .withEngineContract(EngineContract.builder().kvLeaseDurationS(0.012).build()), null)) {
      HttpResponse<String> r = fleet.client.post("/v1/completions", body("delay-headers=100,phase=prefill", true));
      assertThat(r.statusCode()).isEqualTo(504);
      JsonNode error = json(r.body()).path("error");
      assertThat(error.path("type").asText()).isEqualTo("handoff_expired");
      assertThat(error.path("message").asText()).startsWith("KV handoff expired before decode dispatch");
      assertThat(fleet.engine("d0").received()).isEmpty();
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void expiredHandoff_isNotUsed_andAFreshPrefillOnAnotherProducerServesWhenAnAttemptRemains() throws Exception {
    // Lease 300 ms; p0 (the idle fleet's first pick) takes 600 ms to answer, so its handoff is
    // already expired at decode dispatch. The second attempt prefills on p1 (fast) and decodes.
    Path journalPath = Files.createTempFile("narwhal-handoff-", ".jsonl");
    JournalFile journal = new JournalFile(journalPath);
    try (RoutedFleet fleet = RoutedFleet.start(2, 1, RoutedFleet.fastEngines().build(), c -> c
        .withServing(c.serving().withMaxAttempts(2))
        .withEngineContract(EngineContract.builder().kvLeaseDurationS(0.3).build()), journal.path())) {
      fleet.engine("p0").setFaults(FaultPlan.of("delay-headers=600,phase=prefill"));

      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", request("fresh handoff", true));

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.endsWithDone()).isTrue();
      assertThat(fleet.engine("p0").received()).hasSize(1);
      assertThat(fleet.engine("p1").received()).hasSize(1);
      // Only the fresh handoff reached the decode engine: from p1, never p0's expired one.
      assertThat(fleet.engine("d0").received()).hasSize(1);
      assertThat(fleet.engine("d0").received().get(0).body().path("kv_transfer_params").path("remote_engine_id")
          .asText()).isEqualTo(fleet.engine("p1").prefillResponses().get(0).kvTransferParams()
              .path("remote_engine_id").asText());
      JsonNode row = journal.awaitRequestRows(1).get(0);
      assertThat(row.path("attempts").asInt()).isEqualTo(2);
      assertThat(row.path("prefill_iid").asText()).isEqualTo("p1");
      assertThat(row.path("attempt_failures").path(0).path("iid").asText()).isEqualTo("p0");
      assertThat(row.path("attempt_failures").path(0).path("reason").asText()).isEqualTo("handoff_expired");
      fleet.assertReservationsReturnToZero();
    } finally {
      Files.deleteIfExists(journalPath);
    }
  }
}
