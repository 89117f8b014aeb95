package narwhal.bench.fleet;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import narwhal.bench.load.HttpTarget;
import org.jspecify.annotations.Nullable;

/**
 * Narwhal as the operator runs it — {@code narwhal serve --fleet FILE --port P} in its own JVM, so
 * its CPU time and memory are its own. With a router jar given, the harness runs exactly what
 * {@code bin/narwhal} runs ({@code java $NARWHAL_JAVA_OPTS -jar JAR serve ...}) from that jar, a
 * copy taken at the start, so rebuilding the tree during a run cannot pull classes from under a
 * live router; without one it runs {@code bin/narwhal}. gRPC is off: the bench measures HTTP/SSE.
 */
public final class RouterProcess {

  private RouterProcess() {}

  /**
   * @param cpuPrefix what to run the router under ({@code taskset -c CPU}), or nothing; the JVM
   *     and every thread it starts inherit the placement
   */
  public static ManagedProcess start(Path repo, @Nullable Path routerJar, String java, Path fleetFile, int port,
      String javaOptions, List<String> cpuPrefix, Path log) {
    return start(repo, routerJar, java, fleetFile, port, javaOptions, cpuPrefix, log, null);
  }

  /** As above, the router writing its journal to {@code journal} when it is not null. */
  public static ManagedProcess start(Path repo, @Nullable Path routerJar, String java, Path fleetFile, int port,
      String javaOptions, List<String> cpuPrefix, Path log, @Nullable Path journal) {
    return start(repo, routerJar, java, fleetFile, port, javaOptions, cpuPrefix, log, journal, List.of());
  }

  /** As above, with more {@code serve} arguments (e.g. {@code --replica-name r1}). */
  public static ManagedProcess start(Path repo, @Nullable Path routerJar, String java, Path fleetFile, int port,
      String javaOptions, List<String> cpuPrefix, Path log, @Nullable Path journal, List<String> moreArgs) {
    List<String> cmd = new ArrayList<>(cpuPrefix);
    if (routerJar != null) {
      cmd.add(java);
      cmd.addAll(List.of(javaOptions.trim().isEmpty() ? new String[0] : javaOptions.trim().split("\\s+")));
      cmd.addAll(List.of("-jar", routerJar.toString()));
    } else {
      cmd.add(repo.resolve("bin/narwhal").toString());
    }
    cmd.addAll(List.of("serve", "--fleet", fleetFile.toString(), "--host", "127.0.0.1", "--port",
        Integer.toString(port), "--grpc-port", "0"));
    if (journal != null) {
      cmd.addAll(List.of("--journal", journal.toString()));
    }
    cmd.addAll(moreArgs);
    ManagedProcess p = ManagedProcess.start(moreArgs.isEmpty() ? "router" : "router " + String.join(" ", moreArgs), cmd,
        Map.of("NARWHAL_JAVA_OPTS", javaOptions, "NARWHAL_LOG_LEVEL", "WARN"), log);
    try {
      p.awaitHttpOk(new HttpTarget("127.0.0.1", port).url() + "/ready", Duration.ofSeconds(90));
    } catch (RuntimeException e) {
      p.close();
      throw e;
    }
    return p;
  }
}
