package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
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
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
        "narwhal.server.Narwhal", "demo", "--port", "0", "--grpc-port", "0")
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    try {
      String base = routerUrl(child);
      RouterClient client = new RouterClient(base);
      // The demo paces tokens 20 ms apart: 60 tokens keep the stream open for over a second.
      CompletableFuture<RouterClient.SseResponse> stream = CompletableFuture.supplyAsync(() -> client.stream(
          "/v1/completions", "{\"model\":\"narwhal-sim\",\"prompt\":\"a long one\",\"max_tokens\":60,\"stream\":true}"));
      awaitMetric(client, "narwhal_admission_inflight 1.0");

      child.destroy(); // SIGTERM
      awaitStatus(client, "/ready", 503);
      HttpResponse<String> refused = client.post("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"too late\",\"max_tokens\":2}");

      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
      RouterClient.SseResponse done = stream.get(20, TimeUnit.SECONDS);
      assertThat(done.status()).isEqualTo(200);
      assertThat(done.endsWithDone()).isTrue();
      assertThat(done.chunks()).hasSizeGreaterThanOrEqualTo(60);
      assertThat(child.waitFor(20, TimeUnit.SECONDS)).as("the process exits after draining").isTrue();
    } finally {
      child.destroyForcibly();
    }
  }

  private static String routerUrl(Process child) throws InterruptedException {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          lines.add(line);
        }
      } catch (java.io.IOException e) {
        // the process went away; the poll below times out with what was read
      }
    }, "demo-stdout");
    reader.setDaemon(true);
    reader.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
    StringBuilder seen = new StringBuilder();
    while (System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line == null) {
        continue;
      }
      seen.append(line).append('\n');
      Matcher m = ROUTER_URL.matcher(line);
      if (m.find()) {
        return m.group(1);
      }
    }
    throw new AssertionError("narwhal demo did not announce its router; it printed:\n" + seen);
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
