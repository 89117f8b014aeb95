package narwhal.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Reads a router's JSONL journal while it runs; rows are written by a background thread. */
final class JournalFile {

  private final Path path;

  JournalFile(Path path) {
    this.path = path;
  }

  Path path() {
    return path;
  }

  /** Every complete row written so far, the meta row first. */
  List<JsonNode> rows() {
    try {
      if (!Files.exists(path)) {
        return List.of();
      }
      // The writer may be mid-row (its buffer flushes at any byte): only lines ended by a newline
      // are complete, so everything after the last newline is left for the next read.
      String text = Files.readString(path);
      int end = text.lastIndexOf('\n');
      if (end < 0) {
        return List.of();
      }
      return text.substring(0, end).lines().filter(l -> !l.isBlank()).map(RouterClient::json).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The request rows, once there are {@code n} of them (waits up to 10 s for the writer). */
  List<JsonNode> awaitRequestRows(int n) {
    narwhal.testing.Poll.until(java.time.Duration.ofSeconds(10), () -> requestRows().size() >= n,
        () -> "expected " + n + " request rows in " + path + ", got " + requestRows());
    return requestRows();
  }

  /** The request row with router id {@code rid}. */
  JsonNode row(String rid) {
    return rows().stream().filter(r -> rid.equals(r.path("rid").asText())).findFirst()
        .orElseThrow(() -> new AssertionError("no journal row for rid " + rid + " in " + rows()));
  }

  /** The request row whose client-supplied id is {@code clientRid}, waiting for it (up to 10 s). */
  JsonNode awaitRowForClientRid(String clientRid) {
    return awaitRow("client_rid " + clientRid, r -> clientRid.equals(r.path("client_rid").asText(null)));
  }

  /** The first request row matching {@code which}, waiting for the writer (up to 10 s). */
  JsonNode awaitRow(String what, Predicate<JsonNode> which) {
    narwhal.testing.Poll.until(java.time.Duration.ofSeconds(10), () -> requestRows().stream().anyMatch(which),
        () -> "no journal row for " + what + " in " + path + ": " + requestRows());
    return requestRows().stream().filter(which).findFirst().orElseThrow();
  }

  private List<JsonNode> requestRows() {
    return rows().stream().filter(r -> r.path("kind").asText().equals("request")).toList();
  }
}
