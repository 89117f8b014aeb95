package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A real SIGTERM to a {@code narwhal demo} process: the stream in flight runs to [DONE] while a
 * request sent after the signal is refused with 503, and then the process exits.
 */
class SigtermTest {

  private static final Pattern ROUTER_URL = Pattern.compile("router on (http://\\S+)");

  @Test
  void sigterm_drainsInFlightStreams_refusesNewRequests_thenExits() throws Exception {
    // The shipped logging configuration (this module's test one hides INFO): the drain is logged.
    Path logback = Path.of("..", "router-server", "src", "main", "resources", "logback.xml").toAbsolutePath();
    try (ChildProcess demo = ChildProcess.narwhal("demo", Map.of(), List.of("-Dlogback.configurationFile=" + logback),
        "demo", "--port", "0", "--grpc-port", "0")) {
      String base = demo.awaitLine(ROUTER_URL, Duration.ofSeconds(40));
      RouterClient client = new RouterClient(base);
      // The demo paces tokens 20 ms apart: 60 tokens keep the stream open for over a second.
      CompletableFuture<RouterClient.SseResponse> stream = CompletableFuture.supplyAsync(() -> client.stream(
          "/v1/completions", "{\"model\":\"narwhal-sim\",\"prompt\":\"a long one\",\"max_tokens\":60,\"stream\":true}"));
      awaitMetric(client, "narwhal_admission_inflight 1.0");

      demo.terminate(); // SIGTERM
      awaitStatus(client, "/ready", 503);
      HttpResponse<String> refused = client.post("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"too late\",\"max_tokens\":2}");

      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
      RouterClient.SseResponse done = stream.get(20, TimeUnit.SECONDS);
      assertThat(done.status()).isEqualTo(200);
      assertThat(done.endsWithDone()).isTrue();
      assertThat(done.chunks()).hasSizeGreaterThanOrEqualTo(60);
      assertThat(demo.awaitExit(Duration.ofSeconds(20))).as("SIGTERM's exit status").isEqualTo(143);
      assertThat(demo.output()).as("the drain and the final line are logged")
          .contains("narwhal draining: waiting up to")
          .contains("narwhal stopped: drained; 1 requests were in flight at shutdown and all ended");
    }
  }

  private static void awaitMetric(RouterClient client, String line) throws InterruptedException {
    narwhal.testing.Poll.until("/metrics to show " + line, java.time.Duration.ofSeconds(10),
        () -> get(client, "/metrics").body().contains("\n" + line + "\n"));
  }

  private static void awaitStatus(RouterClient client, String path, int status) throws InterruptedException {
    narwhal.testing.Poll.until(path + " to answer " + status, java.time.Duration.ofSeconds(10),
        () -> get(client, path).statusCode() == status);
  }

  /** A GET whose failure fails the wait (Poll's condition cannot throw checked exceptions). */
  private static java.net.http.HttpResponse<String> get(RouterClient client, String path) {
    try {
      return client.get(path);
    } catch (Exception e) {
      throw new AssertionError("GET " + path + " failed", e);
    }
  }
}
