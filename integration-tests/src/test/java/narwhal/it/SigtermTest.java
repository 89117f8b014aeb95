package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
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
    try (ChildProcess demo = ChildProcess.narwhal("demo", "demo", "--port", "0", "--grpc-port", "0")) {
      String base = demo.awaitLine(ROUTER_URL, Duration.ofSeconds(40));
      RouterClient client = new RouterClient(base);
      // The demo paces tokens 20 ms apart: 60 tokens keep the stream open for over a second.
      CompletableFuture<RouterClient.SseResponse> stream = CompletableFuture.supplyAsync(() -> client.stream(
          "/v1/completions", "{\"model\":\"narwhal-sim\",\"prompt\":\"a long one\",\"max_tokens\":60,\"stream\":true}"));
      awaitMetric(client, "narwhal_admission_inflight 1.0");

      demo.process().destroy(); // SIGTERM
      awaitStatus(client, "/ready", 503);
      HttpResponse<String> refused = client.post("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"too late\",\"max_tokens\":2}");

      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
      RouterClient.SseResponse done = stream.get(20, TimeUnit.SECONDS);
      assertThat(done.status()).isEqualTo(200);
      assertThat(done.endsWithDone()).isTrue();
      assertThat(done.chunks()).hasSizeGreaterThanOrEqualTo(60);
      assertThat(demo.process().waitFor(20, TimeUnit.SECONDS)).as("the process exits after draining").isTrue();
    }
  }

  private static void awaitMetric(RouterClient client, String line) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!client.get("/metrics").body().contains("\n" + line + "\n")) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("/metrics never showed " + line);
      }
      Thread.sleep(5);
    }
  }

  private static void awaitStatus(RouterClient client, String path, int status) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (client.get(path).statusCode() != status) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(path + " never answered " + status);
      }
      Thread.sleep(5);
    }
  }
}
