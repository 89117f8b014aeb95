package narwhal.bench.fleet;

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

  public static EngineProcesses start(int prefillCount, int decodeCount, SimSettings sim, String java,
      String classpath, List<String> jvmOptions, Path logs) {
    EngineProcesses engines = new EngineProcesses();
    try {
      for (int i = 0; i < prefillCount + decodeCount; i++) {
        boolean isPrefill = i < prefillCount;
        String iid = isPrefill ? "p" + i : "d" + (i - prefillCount);
        int port = Ports.free();
        List<String> cmd = new ArrayList<>();
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

  public List<Long> pids() {
    return all().stream().map(ManagedProcess::pid).toList();
  }

  @Override
  public void close() {
    all().forEach(ManagedProcess::close);
  }
}
