package narwhal.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import narwhal.cluster.EtcdProcess;
import narwhal.server.DemoFleet;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.jspecify.annotations.Nullable;

/**
 * A real etcd, a simulated fleet (in this JVM) and N {@code narwhal serve} replicas as child
 * processes, so a test can SIGKILL, SIGSTOP and SIGCONT a replica. Each replica has its own
 * journal in the test's directory; the fleet file is one for all, with a {@code cluster} section
 * (a 2 s lease) under a key prefix of the test's own.
 */
final class ReplicaProcesses implements AutoCloseable {

  private static final Pattern SERVE_URL = Pattern.compile("narwhal: serving (http://\\S+)");
  private static final Duration STARTUP = Duration.ofSeconds(60);
  static final int LEASE_TTL_S = 2;

  final EtcdProcess etcd;
  final String prefix = "/narwhal-it/" + UUID.randomUUID().toString().substring(0, 8);
  private final EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  final DemoFleet fleet;
  private final Path dir;
  private final Path fleetFile;
  private final List<@Nullable ChildProcess> replicas = new ArrayList<>();
  private final List<@Nullable RouterClient> clients = new ArrayList<>();
  private final List<String> urls = new ArrayList<>();

  /**
   * @param extra more top-level fleet-file sections, as JSON members (e.g. {@code "controller": {...}})
   */
  ReplicaProcesses(Path dir, int n, int prefill, int decode, SimOptions sim, String extra) throws Exception {
    this.dir = dir;
    etcd = EtcdProcess.start();
    DemoFleet started = null;
    try {
      started = DemoFleet.start(prefill, decode, sim, simGroup);
      fleet = started;
      fleetFile = writeFleet(dir, extra);
      for (int i = 0; i < n; i++) {
        replicas.add(null);
        clients.add(null);
        urls.add("");
      }
      for (int i = 0; i < n; i++) {
        launch(i);
      }
      for (int i = 0; i < n; i++) {
        awaitStarted(i);
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  private Path writeFleet(Path dir, String extra) throws IOException {
    StringBuilder engines = new StringBuilder();
    for (SimEngine e : fleet.engines()) {
      String iid = fleet.config().engines().stream().filter(s -> s.url().toString().startsWith(e.baseUrl()))
          .findFirst().orElseThrow().iid();
      if (engines.length() > 0) {
        engines.append(",\n");
      }
      engines.append("    {\"iid\": \"").append(iid).append("\", \"url\": \"").append(e.baseUrl())
          .append("\", \"role\": \"").append(iid.startsWith("p") ? "prefill" : "decode").append("\"}");
    }
    Path file = dir.resolve("fleet.json");
    Files.writeString(file, String.join("\n",
        "{",
        "  \"schema\": \"narwhal.fleet\",",
        "  \"schema_version\": 1,",
        "  \"model\": \"" + RoutedFleet.MODEL + "\",",
        "  \"engines\": [",
        engines.toString(),
        "  ],",
        "  \"slo\": {\"ttft_s\": 2.0, \"tpot_s\": 0.1},",
        "  \"serving\": {\"admission\": \"open\", \"prefill_timeout_s\": 30},",
        extra.contains("\"engine\"") ? "" : "  \"engine\": {\"first_token_timeout_s\": 30},",
        extra.isEmpty() ? "" : "  " + extra + ",",
        "  \"cluster\": {\"endpoints\": [\"" + etcd.clientUrl() + "\"], \"key_prefix\": \"" + prefix
            + "\", \"lease_ttl_s\": " + LEASE_TTL_S + ", \"request_timeout_s\": 0.5}",
        "}"));
    return file;
  }

  private void launch(int i) {
    ChildProcess started = ChildProcess.narwhal("r" + i, java.util.Map.of(), List.of("-Xmx256m"),
        "serve", "--fleet", fleetFile.toString(), "--host", "127.0.0.1", "--port", "0", "--grpc-port", "0",
        "--journal", journal(i).toString(), "--preflight", "warn", "--replica-name", "r" + i);
    replicas.set(i, started);
    long pid = started.pid();
    // A test stopped on its timeout must not leave replicas running.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly)));
  }

  private void awaitStarted(int i) throws InterruptedException {
    String url = replica(i).awaitLine(SERVE_URL, STARTUP);
    urls.set(i, url);
    clients.set(i, new RouterClient(url));
  }

  Path journal(int i) {
    return dir.resolve("journal-r" + i + ".jsonl");
  }

  ChildProcess replica(int i) {
    ChildProcess p = replicas.get(i);
    if (p == null) {
      throw new IllegalStateException("replica r" + i + " is not running");
    }
    return p;
  }

  RouterClient client(int i) {
    RouterClient c = clients.get(i);
    if (c == null) {
      throw new IllegalStateException("replica r" + i + " is not running");
    }
    return c;
  }

  int size() {
    return replicas.size();
  }

  /** {@code /narwhal/state} of replica {@code i}, or null when it does not answer. */
  @Nullable JsonNode state(int i) {
    try {
      RouterClient c = clients.get(i);
      return c == null ? null : RouterClient.json(c.get("/narwhal/state").body());
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** SIGKILL, at once: the replica is gone without leaving the cluster. */
  void kill(int i) throws InterruptedException {
    ChildProcess p = replicas.set(i, null);
    clients.set(i, null);
    if (p != null) {
      p.signal("KILL");
      p.close();
    }
  }

  /** Starts replica {@code i} again (same name, same journal file appended) and waits until it serves. */
  void restart(int i) throws InterruptedException {
    launch(i);
    awaitStarted(i);
  }

  SimEngine sim(String iid) {
    return fleet.engine(iid);
  }

  @Override
  public void close() throws Exception {
    for (ChildProcess p : replicas) {
      if (p != null) {
        p.signal("CONT");
        p.close();
        // Into the test's report: what each replica said, for a failure to be read.
        System.out.println(p.output());
      }
    }
    if (fleet != null) {
      fleet.close();
    }
    simGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    etcd.close();
  }
}
