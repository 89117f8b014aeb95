package narwhal.bench.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import narwhal.bench.load.HttpTarget;

/**
 * The simulated engines, one JVM each ({@code narwhal.sim.SimCli} from the bench jar), so no arm
 * shares a process with them and each engine's sockets count against its own file limit.
 */
public final class EngineProcesses implements AutoCloseable {

  private final List<ManagedProcess> prefill = new ArrayList<>();
  private final List<ManagedProcess> decode = new ArrayList<>();
  private final List<HttpTarget> prefillTargets = new ArrayList<>();
  private final List<HttpTarget> decodeTargets = new ArrayList<>();

  private EngineProcesses() {}

  /**
   * @param cpuPrefix what to run each engine's command under ({@code taskset -c CPUS}), or nothing
   */
  public static EngineProcesses start(int prefillCount, int decodeCount, SimSettings sim, String java,
      String classpath, List<String> jvmOptions, List<String> cpuPrefix, Path logs) {
    EngineProcesses engines = new EngineProcesses();
    try {
      for (int i = 0; i < prefillCount + decodeCount; i++) {
        boolean isPrefill = i < prefillCount;
        String iid = isPrefill ? "p" + i : "d" + (i - prefillCount);
        int port = Ports.free();
        List<String> cmd = new ArrayList<>(cpuPrefix);
        cmd.add(java);
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", classpath, "narwhal.sim.SimCli", "--port=" + port, "--engine-id=sim-" + iid));
        cmd.addAll(sim.flags());
        ManagedProcess p = ManagedProcess.start("engine " + iid, cmd, Map.of(), logs.resolve("engine-" + iid + ".log"));
        HttpTarget t = new HttpTarget("127.0.0.1", port);
        (isPrefill ? engines.prefill : engines.decode).add(p);
        (isPrefill ? engines.prefillTargets : engines.decodeTargets).add(t);
      }
      for (ManagedProcess p : engines.all()) {
        HttpTarget t = engines.target(p);
        p.awaitHttpOk(t.url() + "/health", Duration.ofSeconds(60));
      }
      return engines;
    } catch (RuntimeException e) {
      engines.close();
      throw e;
    }
  }

  private HttpTarget target(ManagedProcess p) {
    int i = prefill.indexOf(p);
    return i >= 0 ? prefillTargets.get(i) : decodeTargets.get(decode.indexOf(p));
  }

  public List<HttpTarget> prefillTargets() {
    return List.copyOf(prefillTargets);
  }

  public List<HttpTarget> decodeTargets() {
    return List.copyOf(decodeTargets);
  }

  public List<ManagedProcess> all() {
    List<ManagedProcess> all = new ArrayList<>(prefill);
    all.addAll(decode);
    return all;
  }

  /**
   * Switches how every engine frames its streamed responses from the next one on ({@code POST
   * /admin/framing}), and checks each one says it did.
   */
  public void setStreamFraming(String framing) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    List<HttpTarget> targets = new ArrayList<>(prefillTargets);
    targets.addAll(decodeTargets);
    for (HttpTarget t : targets) {
      String url = t.url() + "/admin/framing";
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofString("\"" + framing + "\"")).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200 || !r.body().contains("\"" + framing + "\"")) {
          throw new IllegalStateException("POST " + url + " answered " + r.statusCode() + " " + r.body());
        }
      } catch (IOException e) {
        throw new UncheckedIOException("POST " + url, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  public List<Long> pids() {
    return all().stream().map(ManagedProcess::pid).toList();
  }

  @Override
  public void close() {
    all().forEach(ManagedProcess::close);
  }
}
