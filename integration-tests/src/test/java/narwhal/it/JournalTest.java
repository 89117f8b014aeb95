package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
      assertThat(row.path("ttft_s").asDouble()).isPositive();
      assertThat(row.path("ttft_s").asDouble()).isLessThanOrEqualTo(row.path("first_byte_s").asDouble());
      assertThat(row.path("crossed").asBoolean()).isTrue();
      assertThat(row.path("status").asInt()).isEqualTo(200);
    }
    JsonNode failed = requests.stream().filter(r -> r.path("terminal").asText().equals("failed")).findFirst().get();
    assertThat(failed.path("status").asInt()).isEqualTo(502);
    assertThat(failed.path("error_type").asText()).isEqualTo("decode");
    assertThat(failed.path("reason").asText()).isEqualTo("engine_error");
    assertThat(failed.path("first_byte_s").isNull()).isTrue();
  }
}
