package narwhal.it;

import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} after a scripted workload: every outcome counted once and matching the
 * journal, the latency histograms' counts, the admission and per-engine gauges; and the whole
 * exposition accepted by {@code promtool check metrics}.
 */
class MetricsTest {

  private static final String SLOW_STREAM =
      "{\"prompt\": \"slow [[sim:delay-headers=500,phase=prefill]]\", \"max_tokens\": 3, \"stream\": true}";


  @Test
  void scrapeAfterAWorkload_showsEachOutcome_matchesTheJournal_andPassesPromtool(@TempDir Path dir)
      throws Exception {
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(),
        c -> c.withServing(c.serving().withMaxConnections(1)), journal.path())) {
      RouterClient client = fleet.client;
      for (int i = 0; i < 3; i++) {
        assertThat(client.stream("/v1/completions",
            "{\"prompt\": \"stream " + i + "\", \"max_tokens\": 4, \"stream\": true}").endsWithDone()).isTrue();
      }
      assertThat(client.post("/v1/chat/completions",
          "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"max_tokens\": 3}").statusCode()).isEqualTo(200);
      assertThat(client.post("/v1/completions",
          "{\"prompt\": \"x [[sim:status=500,phase=decode]]\", \"max_tokens\": 3}").statusCode()).isEqualTo(502);
      assertThat(client.post("/v1/completions", "{\"prompt\": \"x\", \"n\": 2}").statusCode()).isEqualTo(400);
      assertThat(client.post("/v1/completions", "{\"model\": \"other\", \"prompt\": \"x\"}").statusCode())
          .isEqualTo(404);
      // One request holds the only seat while another arrives: that one is rejected.
      CompletableFuture<HttpResponse<String>> holder = client.postAsync("/v1/completions", SLOW_STREAM);
      until("the seat to be taken", () -> fleet.router.router().admission().inFlight() == 1);
      assertThat(client.post("/v1/completions", "{\"prompt\": \"x\"}").statusCode()).isEqualTo(429);
      assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      until("the seat to come back", () -> fleet.router.router().admission().inFlight() == 0);
      // A client that leaves while its request waits for the producer: cancelled.
      try (RawHttp raw = new RawHttp(fleet.router.port())) {
        raw.sendHeaders("/v1/completions", SLOW_STREAM.length());
        raw.write(SLOW_STREAM);
        // Waiting for its prefill, past counting its prompt: it reached the engines (router overhead).
        until("the request to wait for its producer", () -> fleet.router.router().fleet().totalResidentPrefill() == 1);
      }
      until("the cancelled request to end", () -> fleet.router.router().admission().inFlight() == 0);
      List<JsonNode> rows = journal.awaitRequestRows(10);

      HttpResponse<String> scrape = client.get("/metrics");
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.headers().firstValue("content-type").orElse("")).startsWith("text/plain; version=0.0.4");
      Map<String, Double> m = parse(scrape.body());

      // The failure is named after the decode engine it happened on (either may have been placed).
      assertThat(m).containsAnyOf(Map.entry("narwhal_failed_total{iid=\"d0\",reason=\"engine_error\"}", 1.0),
          Map.entry("narwhal_failed_total{iid=\"d1\",reason=\"engine_error\"}", 1.0));
      assertThat(m).containsEntry("narwhal_offered_total", 10.0)
          .containsEntry("narwhal_served_total", 5.0)
          .containsEntry("narwhal_invalid_requests_total", 2.0)
          .containsEntry("narwhal_rejected_total{reason=\"inflight_limit\"}", 1.0)
          .containsEntry("narwhal_cancelled_total", 1.0)
          .containsEntry("narwhal_retries_total", 0.0)
          .containsEntry("narwhal_retry_credits", 10.0)
          .containsEntry("narwhal_admission_inflight", 0.0)
          .containsEntry("narwhal_admission_inflight_limit", 1.0)
          .containsEntry("narwhal_queued", 0.0)
          .containsEntry("narwhal_draining", 0.0)
          // 5 completed plus the failed one reached prefill completion; 5 saw a first token.
          .containsEntry("narwhal_ttft_seconds_count", 6.0)
          .containsEntry("narwhal_ttft_seconds_bucket{le=\"+Inf\"}", 6.0)
          .containsEntry("narwhal_first_byte_seconds_count", 5.0)
          .containsEntry("narwhal_tpot_seconds_count", 5.0)
          // Everything that reached the engines: 5 completed, the failed one, the cancelled one.
          .containsEntry("narwhal_router_overhead_seconds_count", 7.0);
      for (String iid : List.of("p0", "p1", "d0", "d1")) {
        assertThat(m).containsEntry("narwhal_resident_requests{iid=\"" + iid + "\",phase=\"prefill\"}", 0.0)
            .containsEntry("narwhal_resident_requests{iid=\"" + iid + "\",phase=\"decode\"}", 0.0)
            .containsEntry("narwhal_engine_condition{condition=\"active\",iid=\"" + iid + "\"}", 1.0);
      }
      // A fast fleet on loopback: the router's own share of a request is well under 50 ms.
      assertThat(m.get("narwhal_router_overhead_seconds_bucket{le=\"0.05\"}")).isEqualTo(7.0);

      // The journal tells the same story, row for row.
      Map<String, Long> terminals = rows.stream()
          .collect(Collectors.groupingBy(r -> r.path("terminal").asText(), Collectors.counting()));
      assertThat(terminals).containsExactlyInAnyOrderEntriesOf(Map.of(
          "completed", 5L, "failed", 1L, "invalid", 2L, "rejected", 1L, "cancelled", 1L));
      assertThat(rows).allSatisfy(r -> assertThat(r.path("run").asText()).isEqualTo(fleet.router.router().runId()));
      assertThat(journal.rows().get(0).path("run").asText()).isEqualTo(fleet.router.router().runId());

      promtoolAccepts(scrape.body(), dir);
    }
  }

  /** Series line to value: {@code name{labels} value}; comments skipped. */
  private static Map<String, Double> parse(String text) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
    }
    return out;
  }

  /**
   * Runs {@code promtool check metrics} on the exposition: the one on the {@code PATH}, else the one
   * {@code .ci/run} took out of Debian's prometheus package into {@code .tools/promtool/}.
   */
  private static void promtoolAccepts(String exposition, Path dir) throws IOException, InterruptedException {
    String promtool = findOnPath("promtool");
    if (promtool == null) {
      promtool = inTools("promtool/promtool");
    }
    if (promtool == null) {
      fail("promtool is not installed, so /metrics cannot be checked: run .ci/run once (it puts promtool in "
          + ".tools/promtool/ without installing the Prometheus server), or put a promtool on the PATH");
    }
    Path output = dir.resolve("promtool.out");
    Process p = new ProcessBuilder(promtool, "check", "metrics").redirectErrorStream(true)
        .redirectOutput(output.toFile()).start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(exposition.getBytes(StandardCharsets.UTF_8));
    }
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String said = Files.readString(output);
    assertThat(p.exitValue()).as("promtool check metrics said:\n%s", said).isZero();
    assertThat(said).as("promtool lint findings").isBlank();
  }

  /** {@code .tools/<path>} in the repository (the build's working directory is a module, or the root). */
  private static String inTools(String path) {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("mvnw"))) {
        File f = d.resolve(".tools").resolve(path).toFile();
        return f.canExecute() ? f.getPath() : null;
      }
    }
    return null;
  }

  private static String findOnPath(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, name);
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    return null;
  }
}
