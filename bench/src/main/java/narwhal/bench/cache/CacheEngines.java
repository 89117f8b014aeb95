package narwhal.bench.cache;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import narwhal.bench.fleet.ManagedProcess;
import narwhal.bench.fleet.Ports;

/**
 * The cache benchmark's engines: GPU-timed simulated vLLM engines, one JVM each, with vLLM's prefix
 * cache, cached-token reporting and KV events (PUB and replay on ports of their own, bound on every
 * interface as vLLM's {@code tcp://*:PORT} does).
 */
final class CacheEngines implements AutoCloseable {

  private final List<ManagedProcess> processes = new ArrayList<>();
  private final List<String> urls = new ArrayList<>();
  private final List<String> events = new ArrayList<>();
  private final List<String> replays = new ArrayList<>();

  static CacheEngines start(int count, String model, long seed, List<String> gpuFlags, String java, String classpath,
      List<String> jvmOptions, Path logs) {
    CacheEngines e = new CacheEngines();
    try {
      for (int i = 0; i < count; i++) {
        int port = Ports.free();
        int pub = Ports.free();
        int replay = Ports.free();
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", classpath, "narwhal.sim.SimCli", "--port=" + port, "--engine-id=sim-e" + i,
            "--model=" + model, "--seed=" + seed, "--timing=gpu", "--enable-prefix-caching", "--block-size=16",
            "--enable-prompt-tokens-details", "--kv-events-config={\"enable_kv_cache_events\": true, \"publisher\":"
                + " \"zmq\", \"endpoint\": \"tcp://*:" + pub + "\", \"topic\": \"kv-events\", \"replay_endpoint\":"
                + " \"tcp://*:" + replay + "\"}"));
        cmd.addAll(gpuFlags);
        ManagedProcess p = ManagedProcess.start("engine e" + i, cmd, Map.of(), logs.resolve("engine-e" + i + ".log"));
        e.processes.add(p);
        e.urls.add("http://127.0.0.1:" + port);
        e.events.add("tcp://127.0.0.1:" + pub);
        e.replays.add("tcp://127.0.0.1:" + replay);
      }
      for (int i = 0; i < count; i++) {
        e.processes.get(i).awaitHttpOk(e.urls.get(i) + "/health", Duration.ofSeconds(60));
      }
      return e;
    } catch (RuntimeException ex) {
      e.close();
      throw ex;
    }
  }

  List<String> urls() {
    return List.copyOf(urls);
  }

  List<String> eventEndpoints() {
    return List.copyOf(events);
  }

  List<String> replayEndpoints() {
    return List.copyOf(replays);
  }

  /** Empties every engine's prefix cache ({@code POST /admin/cache/reset}), so each run starts cold. */
  void resetCaches() {
    HttpClient http = HttpClient.newHttpClient();
    for (String url : urls) {
      for (int attempt = 0; attempt < 50; attempt++) {
        try {
          HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/admin/cache/reset"))
              .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 200 && r.body().contains("true")) {
            break;
          }
          Thread.sleep(200); // sequences still hold blocks (leases): vLLM refuses a reset then too
        } catch (IOException e) {
          break;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    processes.forEach(ManagedProcess::close);
  }
}
