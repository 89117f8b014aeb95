package narwhal.bench.adaptive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Keeps the role controller's decisions from a run's journal: the {@code controller_decision}
 * event rows say why every move was made (or blocked), which the roles chart cannot. The request
 * rows are dropped with the journal; a results directory keeps only what explains the run.
 */
final class ControllerDecisions {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ControllerDecisions() {}

  /** Copies {@code journal}'s controller decisions to {@code out} and deletes the journal; returns how many. */
  static int keep(Path journal, Path out) throws IOException {
    if (!Files.exists(journal)) {
      return 0;
    }
    Files.createDirectories(out.getParent());
    int kept = 0;
    try (BufferedReader in = Files.newBufferedReader(journal);
        BufferedWriter w = Files.newBufferedWriter(out)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (isDecision(line)) {
          w.write(line);
          w.newLine();
          kept++;
        }
      }
    }
    Files.delete(journal);
    return kept;
  }

  static boolean isDecision(String line) {
    try {
      JsonNode row = JSON.readTree(line);
      return row != null && "event".equals(row.path("kind").asText()) && "controller_decision".equals(
          row.path("event").asText());
    } catch (IOException e) {
      return false; // a torn last line of a router that was stopped mid-write
    }
  }
}
