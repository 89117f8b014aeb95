package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A {@code narwhal demo} process with the shipped logback.xml (not this module's test config) and
 * {@code NARWHAL_LOG_FORMAT=json}: every stderr line is a JSON object (start-up, request and
 * shutdown lines alike, the last one saying the router stopped), a failed request's line carries
 * its journal fields as fields, and stdout holds only the command's own output.
 */
class ShippedLogFormatTest {

  private static final Pattern ROUTER_URL = Pattern.compile("router on (http://\\S+)");

  @Test
  void jsonLogs_oneObjectPerLine_withRequestFieldsAsFields() throws Exception {
    Path config = Path.of("..", "router-server", "src", "main", "resources", "logback.xml").toAbsolutePath();
    assertThat(config).exists();
    try (ChildProcess demo = ChildProcess.narwhal("demo", Map.of("NARWHAL_LOG_FORMAT", "json"),
        List.of("-Dlogback.configurationFile=" + config), "demo", "--port", "0", "--grpc-port", "0")) {
      RouterClient client = new RouterClient(demo.awaitLine(ROUTER_URL, Duration.ofSeconds(40)));
      assertThat(client.post("/v1/completions", "{\"model\":\"narwhal-sim\",\"prompt\":\"x "
          + "[[sim:status=500,phase=decode]]\",\"max_tokens\":2}").statusCode()).isEqualTo(502);

      // The request's line is written after its answer went out: wait for it rather than race it.
      narwhal.testing.Poll.until("the request's log line", () -> demo.output().contains("OutcomeRecorder"));
      demo.terminate(); // SIGTERM
      demo.awaitExit(Duration.ofSeconds(20));

      List<String> stderr = demo.output().lines().filter(l -> l.startsWith("[demo err] "))
          .map(l -> l.substring("[demo err] ".length())).toList();
      assertThat(stderr).isNotEmpty();
      List<JsonNode> events = stderr.stream().map(RouterClient::json).toList();
      JsonNode request = events.stream().filter(e -> e.path("logger").asText().endsWith("OutcomeRecorder"))
          .findFirst().orElseThrow(() -> new AssertionError("no request line in " + stderr));
      assertThat(request.path("terminal").asText()).isEqualTo("failed");
      assertThat(request.path("status").asInt()).isEqualTo(502);
      assertThat(request.path("rid").asText()).isNotEmpty();
      assertThat(request.path("msg").asText()).startsWith("request failed: ");
      assertThat(events.get(events.size() - 1).path("msg").asText())
          .as("the last line says the router stopped; output: %s", demo.output()).startsWith("narwhal stopped");

      // stdout is the command's own output: no logging framework chatter (logback prints its
      // configuration status there when a config warns and no status listener is set).
      List<String> stdout = demo.output().lines().filter(l -> l.startsWith("[demo out] ")).toList();
      assertThat(stdout).noneMatch(l -> l.contains("ch.qos.logback"));
      assertThat(stdout).noneMatch(l -> l.contains("preflight"));
    }
  }
}
