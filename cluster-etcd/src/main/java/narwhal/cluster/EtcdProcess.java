package narwhal.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A throwaway single-member etcd (the {@code etcd} binary, Debian's {@code etcd-server}) on
 * loopback ports with a temporary data directory: for {@code narwhal demo --replicas N}, the
 * replica benchmark and the tests. It can be killed and started again on the same ports and data
 * (an etcd restart), or paused and resumed (a slow etcd). {@link #close} kills it and deletes its
 * data.
 */
public final class EtcdProcess implements AutoCloseable {

  private final Path binary;
  private final Path dataDir;
  private final int clientPort;
  private final int peerPort;
  private final boolean ownsDataDir;
  private volatile @Nullable Process process;
  private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
  /**
   * Kills etcd if this JVM exits without closing it (a test stopped on its timeout must not leave
   * it running). It first gives the JVM's other shutdown work a few seconds to close it in order:
   * a demo's routers leave the cluster before their etcd goes.
   */
  private final Thread reaper = new Thread(() -> {
    try {
      closed.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
    }
  }, "narwhal-etcd-reaper");

  private EtcdProcess(Path binary, Path dataDir, int clientPort, int peerPort, boolean ownsDataDir) {
    this.binary = binary;
    this.dataDir = dataDir;
    this.clientPort = clientPort;
    this.peerPort = peerPort;
    this.ownsDataDir = ownsDataDir;
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  /** The {@code etcd} binary on the PATH (or /usr/bin/etcd), or null when there is none. */
  public static @Nullable Path findBinary() {
    String path = System.getenv("PATH");
    List<String> dirs = new ArrayList<>(path == null ? List.of() : List.of(path.split(java.io.File.pathSeparator)));
    dirs.add("/usr/bin");
    for (String dir : dirs) {
      Path candidate = Path.of(dir, "etcd");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /**
   * Starts etcd on two free loopback ports and waits until it answers.
   *
   * @throws IllegalStateException when there is no etcd binary or it does not come up
   */
  public static EtcdProcess start() {
    Path binary = findBinary();
    if (binary == null) {
      throw new IllegalStateException("no etcd binary on the PATH: install Debian's etcd-server package "
          + "(apt-get install etcd-server), or put an etcd 3.4+ binary on the PATH");
    }
    IllegalStateException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      Path dir;
      try {
        dir = Files.createTempDirectory("narwhal-etcd-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      EtcdProcess etcd = new EtcdProcess(binary, dir, freePort(), freePort(), true);
      try {
        etcd.startProcess();
        return etcd;
      } catch (IllegalStateException e) {
        // A port taken between choosing it and etcd binding it: try other ports.
        last = e;
        etcd.close();
      }
    }
    throw last;
  }

  /** The client URL, e.g. {@code http://127.0.0.1:23790}. */
  public URI clientUrl() {
    return URI.create("http://127.0.0.1:" + clientPort);
  }

  public long pid() {
    Process p = process;
    return p == null ? -1 : p.pid();
  }

  /** Kills etcd at once (SIGKILL), keeping its data. */
  public void kill() {
    Process p = process;
    process = null;
    if (p != null) {
      p.destroyForcibly();
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Starts etcd again on the same ports and data after {@link #kill}. */
  public void restart() {
    if (process == null) {
      startProcess();
    }
  }

  /** SIGSTOP: etcd stops answering without closing its connections (a hung etcd). */
  public void pause() {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause}. */
  public void resume() {
    signal("CONT");
  }

  private void signal(String name) {
    Process p = process;
    if (p == null) {
      return;
    }
    try {
      new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).inheritIO().start().waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void startProcess() {
    String client = "http://127.0.0.1:" + clientPort;
    String peer = "http://127.0.0.1:" + peerPort;
    ProcessBuilder b = new ProcessBuilder(binary.toString(),
        "--name", "narwhal",
        "--data-dir", dataDir.toString(),
        "--listen-client-urls", client,
        "--advertise-client-urls", client,
        "--listen-peer-urls", peer,
        "--initial-advertise-peer-urls", peer,
        "--initial-cluster", "narwhal=" + peer,
        "--initial-cluster-state", "new",
        "--logger", "zap",
        "--log-level", "error",
        // Short elections: a restarted single member is leader again within a second.
        "--heartbeat-interval", "50",
        "--election-timeout", "500");
    b.redirectErrorStream(true);
    b.redirectOutput(dataDir.resolve("etcd.log").toFile());
    try {
      process = b.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + binary + ": " + e.getMessage(), e);
    }
    awaitHealthy(Duration.ofSeconds(20));
  }

  private void awaitHealthy(Duration within) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      Process p = process;
      if (p == null || !p.isAlive()) {
        throw new IllegalStateException("etcd exited while starting: " + logTail());
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(clientUrl() + "/health"))
            .timeout(Duration.ofMillis(500)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200 && r.body().contains("\"true\"")) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for etcd", e);
      }
      try {
        p.waitFor(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for etcd", e);
      }
    }
    throw new IllegalStateException("etcd did not become healthy within " + within.toSeconds() + " s: " + logTail());
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(dataDir.resolve("etcd.log"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    kill();
    closed.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException e) {
      // already shutting down: the hook runs anyway
    }
    if (ownsDataDir) {
      try (Stream<Path> files = Files.walk(dataDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      } catch (IOException e) {
        // a leftover temporary directory is harmless
      }
    }
  }
}
