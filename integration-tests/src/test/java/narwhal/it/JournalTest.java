package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import narwhal.sim.FaultPlan;
import narwhal.sim.ReceivedRequest;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal: a meta row, then one terminal row per request with the measurement contract. */
class JournalTest {

  @Test
  void journal_recordsMetaThenOneRowPerRequest_withTtftNotAfterFirstByte(@TempDir Path dir) throws Exception {
    Path journal = dir.resolve("journal.jsonl");
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), c -> c, journal)) {
      for (int i = 0; i < 5; i++) {
        fleet.client.stream("/v1/completions",
            "{\"model\":\"narwhal-sim\",\"prompt\":\"row " + i + "\",\"max_tokens\":3,\"stream\":true}");
      }
      fleet.client.post("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"bad [[sim:status=500,phase=decode]]\",\"max_tokens\":3}");
    }
    List<JsonNode> rows = Files.readAllLines(journal).stream().map(RouterClient::json).toList();
    assertThat(rows.get(0).path("kind").asText()).isEqualTo("meta");
    assertThat(rows.get(0).path("schema").asText()).isEqualTo("narwhal.journal");
    assertThat(rows.get(0).path("schema_version").asInt()).isEqualTo(1);
    List<JsonNode> requests = rows.subList(1, rows.size());
    assertThat(requests).hasSize(6);
    for (JsonNode row : requests) {
      for (String field : List.of("rid", "client_rid", "arrived", "ttft_s", "first_byte_s", "prefill_iid",
          "decode_iid", "crossed", "attempts", "terminal", "reason", "status", "error_type")) {
        assertThat(row.has(field)).as("row has %s: %s", field, row).isTrue();
      }
    }
    List<JsonNode> completed = requests.stream().filter(r -> r.path("terminal").asText().equals("completed")).toList();
    assertThat(completed).hasSize(5);
    for (JsonNode row : completed) {
      assertTtftNotAfterFirstByte(row);
      assertThat(row.path("crossed").asBoolean()).isTrue();
      assertThat(row.path("status").asInt()).isEqualTo(200);
    }
    JsonNode failed = requests.stream().filter(r -> r.path("terminal").asText().equals("failed")).findFirst().get();
    assertThat(failed.path("status").asInt()).isEqualTo(502);
    assertThat(failed.path("error_type").asText()).isEqualTo("decode");
    assertThat(failed.path("reason").asText()).isEqualTo("engine_error");
    assertThat(failed.path("first_byte_s").isNull()).isTrue();
  }

  @Test
  void nonStreamingAndRetriedCompletions_haveTtftNotAfterFirstByte() {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(),
        c -> c.withServing(c.serving().withMaxAttempts(2).withRetryBackoff(0.001, 0.001)), null)) {
      HttpResponse<String> whole = fleet.client.post("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"one whole answer\",\"max_tokens\":4}");
      assertThat(whole.statusCode()).as(whole.body()).isEqualTo(200);
      JsonNode wholeRow = fleet.journal().awaitRow("the non-streaming request", r -> r.path("rid").asText()
          .equals(whole.headers().firstValue("x-request-id").orElseThrow()));
      assertThat(wholeRow.path("terminal").asText()).isEqualTo("completed");
      assertThat(wholeRow.path("stream").asBoolean(true)).isFalse();
      assertThat(wholeRow.path("attempts").asInt()).isEqualTo(1);
      assertTtftNotAfterFirstByte(wholeRow);

      // d0 answers every decode with 503, before any token: a transient fault before output, so
      // the router starts a fresh attempt on the other pair (p and d both excluded). Directives
      // cannot do this: their count is per engine, so the retry's engine would fail too. Which
      // decode engine a request tries first is placement's choice, so send until one hits d0.
      fleet.engine("d0").setFaults(FaultPlan.of("status=503,phase=decode"));
      RouterClient.SseResponse retried = null;
      for (int i = 0; i < 10 && retried == null; i++) {
        RouterClient.SseResponse r = fleet.client.stream("/v1/completions",
            "{\"model\":\"narwhal-sim\",\"prompt\":\"try twice " + i + "\",\"max_tokens\":4,\"stream\":true}");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.endsWithDone()).isTrue();
        JsonNode row = fleet.journal().awaitRow("request " + i, q -> q.path("rid").asText().equals(r.requestId()));
        if (row.path("attempts").asInt() > 1) {
          retried = r;
        }
      }
      assertThat(retried).as("a request whose first attempt went to d0").isNotNull();
      String retriedRid = retried.requestId();
      JsonNode retriedRow = fleet.journal().awaitRow("the retried request",
          r -> r.path("rid").asText().equals(retriedRid));
      assertThat(retriedRow.path("terminal").asText()).as("row %s", retriedRow).isEqualTo("completed");
      assertThat(retriedRow.path("attempts").asInt()).as("row %s", retriedRow).isEqualTo(2);
      assertThat(retriedRow.path("attempt_failures")).as("row %s", retriedRow).hasSize(1);
      assertThat(retriedRow.path("attempt_failures").path(0).path("phase").asText()).isEqualTo("decode");
      assertThat(retriedRow.path("attempt_failures").path(0).path("iid").asText()).isEqualTo("d0");
      assertThat(retriedRow.path("decode_iid").asText()).isEqualTo("d1");
      assertTtftNotAfterFirstByte(retriedRow);
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void clientRequestId_isKeptAsClientRid_whileTheRouterAndEachLegUseTheirOwn() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start()) {
      String prompt = "who am I";
      HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.router.port() + "/v1/completions"))
              .timeout(Duration.ofSeconds(30))
              .header("Content-Type", "application/json")
              .header("X-Request-Id", "c-1")
              .POST(HttpRequest.BodyPublishers.ofString(
                  "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":3}"))
              .build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);

      JsonNode row = fleet.journal().awaitRowForClientRid("c-1");
      String rid = row.path("rid").asText();
      assertThat(rid).isNotBlank().isNotEqualTo("c-1");
      assertThat(r.headers().firstValue("x-request-id")).hasValue(rid);

      String prefillId = backendRequestId(fleet.engine(row.path("prefill_iid").asText()), prompt);
      String decodeId = backendRequestId(fleet.engine(row.path("decode_iid").asText()), prompt);
      assertThat(prefillId).as("prefill leg's X-Request-Id").isNotBlank().isNotEqualTo("c-1");
      assertThat(decodeId).as("decode leg's X-Request-Id").isNotBlank().isNotEqualTo("c-1")
          .isNotEqualTo(prefillId);
    }
  }

  /** The X-Request-Id of the one request {@code engine} received for {@code prompt}. */
  private static String backendRequestId(SimEngine engine, String prompt) {
    List<ReceivedRequest> seen = engine.received().stream()
        .filter(q -> q.body() != null && prompt.equals(q.body().path("prompt").asText())).toList();
    assertThat(seen).as("requests %s received for %s", engine, prompt).hasSize(1);
    return seen.get(0).header("x-request-id");
  }

  private static void assertTtftNotAfterFirstByte(JsonNode row) {
    assertThat(row.path("ttft_s").isNumber()).as("ttft_s in %s", row).isTrue();
    assertThat(row.path("first_byte_s").isNumber()).as("first_byte_s in %s", row).isTrue();
    assertThat(row.path("ttft_s").asDouble()).as("row %s", row).isPositive()
        .isLessThanOrEqualTo(row.path("first_byte_s").asDouble());
  }
}
