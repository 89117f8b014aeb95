package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal against hostile request content and restarts, over real sockets: a request whose
 * strings are not valid UTF-16 (lone or reversed surrogates, which JSON's {@code \\u} escapes can
 * spell) is answered and journaled like any other, and every later request still gets its row;
 * a restart on the same journal path appends instead of truncating.
 */
class JournalContentTest {

  /** JSON texts (as sent on the wire, escapes intact) that decode to strings UTF-8 cannot encode. */
  private static final List<String> BAD_STRINGS = List.of("\\ud800", "\\udfff", "\\udfff\\ud800", "a\\ud83dz");

  @Test
  void surrogateStrings_areJournaledEscaped_andEveryLaterRequestKeepsItsRow(@TempDir Path dir) throws Exception {
    Path journal = dir.resolve("journal.jsonl");
    List<String> rids = new ArrayList<>();
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, journal)) {
      for (String bad : BAD_STRINGS) {
        // The model name (404, and the name is quoted in the error the row keeps) ...
        HttpResponse<String> model = fleet.client.post("/v1/completions",
            "{\"model\":\"" + bad + "\",\"prompt\":\"hi\",\"max_tokens\":2}");
        assertThat(model.statusCode()).as(model.body()).isEqualTo(404);
        rids.add(model.headers().firstValue("x-request-id").orElseThrow());
        // ... a wrong-typed field's value, and a completed request carrying such strings elsewhere.
        HttpResponse<String> typed = fleet.client.post("/v1/completions",
            "{\"model\":\"narwhal-sim\",\"prompt\":\"hi\",\"max_tokens\":\"" + bad + "\"}");
        assertThat(typed.statusCode()).as(typed.body()).isEqualTo(400);
        rids.add(typed.headers().firstValue("x-request-id").orElseThrow());
        HttpResponse<String> served = fleet.client.post("/v1/chat/completions",
            "{\"model\":\"narwhal-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"" + bad + "\"}],"
                + "\"user\":\"" + bad + "\",\"max_tokens\":2}");
        assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
        rids.add(served.headers().firstValue("x-request-id").orElseThrow());
      }
      for (int i = 0; i < 5; i++) {
        HttpResponse<String> ok = fleet.client.post("/v1/completions",
            "{\"model\":\"narwhal-sim\",\"prompt\":\"after " + i + "\",\"max_tokens\":2}");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        rids.add(ok.headers().firstValue("x-request-id").orElseThrow());
      }
      for (String rid : rids) {
        fleet.journal().awaitRow("rid " + rid, r -> rid.equals(r.path("rid").asText()));
      }
      HttpResponse<String> ready = fleet.client.get("/ready");
      assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    }

    byte[] bytes = Files.readAllBytes(journal);
    assertThat(strictUtf8(bytes)).as("the journal is valid UTF-8").isTrue();
    String text = new String(bytes, StandardCharsets.UTF_8);
    List<JsonNode> rows = text.lines().map(RouterClient::json).toList();
    assertThat(rows.stream().filter(r -> r.path("kind").asText().equals("request")).map(r -> r.path("rid").asText()))
        .containsAll(rids);
    // The lone surrogate stays visible as a JSON escape, and reads back as the string that came in.
    assertThat(text).contains("\\ud800").contains("\\udfff");
    JsonNode first404 = rows.stream().filter(r -> rids.get(0).equals(r.path("rid").asText())).findFirst().orElseThrow();
    assertThat(first404.path("terminal").asText()).isEqualTo("invalid");
    assertThat(first404.path("status").asInt()).isEqualTo(404);
    assertThat(first404.path("error").asText()).contains("\ud800");
  }

  @Test
  void restartOnTheSameJournalPath_appendsToThePreviousRunsRows(@TempDir Path dir) {
    Path journal = dir.resolve("journal.jsonl");
    String firstRid;
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, journal)) {
      HttpResponse<String> r = fleet.client.post("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"first run\",\"max_tokens\":2}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      firstRid = r.headers().firstValue("x-request-id").orElseThrow();
      fleet.journal().awaitRow("first run", row -> firstRid.equals(row.path("rid").asText()));
    }
    String secondRid;
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, journal)) {
      HttpResponse<String> r = fleet.client.post("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"second run\",\"max_tokens\":2}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      secondRid = r.headers().firstValue("x-request-id").orElseThrow();
      fleet.journal().awaitRow("second run", row -> secondRid.equals(row.path("rid").asText()));
    }
    List<JsonNode> rows = new JournalFile(journal).rows();
    // Each run opens with its own meta row, then its request rows, in run order.
    assertThat(rows).extracting(r -> r.path("kind").asText()).containsExactly("meta", "request", "meta", "request");
    assertThat(rows.get(1).path("rid").asText()).isEqualTo(firstRid);
    assertThat(rows.get(3).path("rid").asText()).isEqualTo(secondRid);
    assertThat(rows.get(0).path("run").asText()).isNotEqualTo(rows.get(2).path("run").asText());
  }

  private static boolean strictUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
