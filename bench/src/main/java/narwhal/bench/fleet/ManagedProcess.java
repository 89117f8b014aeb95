package narwhal.bench.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A child process the harness started (engine, router, nginx), its output in a log file. Stopping
 * it sends SIGTERM (so JVMs run their shutdown hooks and nginx shuts down fast), then SIGKILL if it
 * lingers.
 */
public final class ManagedProcess implements AutoCloseable {

  private final String name;
  private final Process process;
  private final Path log;

  private ManagedProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  public static ManagedProcess start(String name, List<String> command, Map<String, String> env, Path log) {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    try {
      Files.createDirectories(log.getParent());
      return new ManagedProcess(name, pb.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + name + ": " + String.join(" ", command), e);
    }
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Waits until {@code url} answers 200, failing early (with the log's tail) if the process dies. */
  public void awaitHttpOk(String url, Duration timeout) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      checkAlive();
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2))
            .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
        last = r.statusCode() + " " + r.body();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      pause(200);
    }
    throw new IllegalStateException(name + " did not answer 200 on " + url + " within " + timeout + " (last: "
        + last + "); log " + log + ":\n" + tail());
  }

  /** Waits until a TCP connection to {@code port} on loopback succeeds. */
  public void awaitPort(int port, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      checkAlive();
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        return;
      } catch (IOException e) {
        pause(100);
      }
    }
    throw new IllegalStateException(name + " did not listen on " + port + " within " + timeout + "; log " + log
        + ":\n" + tail());
  }

  private void checkAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(name + " exited with status " + process.exitValue() + "; log " + log + ":\n"
          + tail());
    }
  }

  /** The last lines of the process's output, for error messages. */
  public String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
