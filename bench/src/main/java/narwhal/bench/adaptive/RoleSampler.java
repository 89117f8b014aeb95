package narwhal.bench.adaptive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Reads the router's {@code /narwhal/state} every {@code period} during a run and keeps how many
 * engines were in the prefill role at each sample, for the roles-over-time chart.
 */
final class RoleSampler implements AutoCloseable {

  /** One sample: seconds since the run started and the number of engines in the prefill role. */
  record Sample(double atS, int prefillEngines, int decodeEngines) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final URI state;
  private final long start = System.nanoTime();
  private final List<Sample> samples = new ArrayList<>(); // guarded by this
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "adaptive-roles");
    t.setDaemon(true);
    return t;
  });

  RoleSampler(String baseUrl, Duration period) {
    this.state = URI.create(baseUrl + "/narwhal/state");
    timer.scheduleAtFixedRate(this::sample, 0, period.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void sample() {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(state).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.ofString());
      int prefill = 0;
      int decode = 0;
      for (JsonNode e : JSON.readTree(r.body()).path("engines")) {
        if (e.path("role").asText().equals("prefill")) {
          prefill++;
        } else if (e.path("role").asText().equals("decode")) {
          decode++;
        }
      }
      synchronized (this) {
        samples.add(new Sample((System.nanoTime() - start) / 1e9, prefill, decode));
      }
    } catch (Exception e) {
      // A missed sample is a gap in the chart, not a failed run.
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }

  synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
