package narwhal.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@code narwhal} command run as its own JVM, on this test's class path (the same classes the
 * runnable jar holds). Both output streams are drained from the start, so a chatty child never
 * blocks on a full pipe; stdout is kept for {@link #awaitLine}, and the tail of both for failure
 * messages. {@link #close} kills it.
 */
final class ChildProcess implements AutoCloseable {

  /** Lines of output kept for failure messages. */
  private static final int KEPT_LINES = 300;

  private final String name;
  private final Process process;
  private final List<String> stdout = new ArrayList<>(); // guarded by this
  private final Deque<String> tail = new ArrayDeque<>(); // guarded by this
  private boolean stdoutOpen = true; // guarded by this
  private final List<Thread> readers = new ArrayList<>();

  private ChildProcess(String name, Process process) {
    this.name = name;
    this.process = process;
    drain(process.getInputStream(), "out", true);
    drain(process.getErrorStream(), "err", false);
  }

  /** Starts {@code narwhal args...}; {@code name} labels its output in failure messages. */
  static ChildProcess narwhal(String name, String... args) {
    return narwhal(name, java.util.Map.of(), List.of(), args);
  }

  /** As {@link #narwhal(String, String...)}, with extra environment variables and JVM options. */
  static ChildProcess narwhal(String name, java.util.Map<String, String> env, List<String> jvmOptions,
      String... args) {
    return start(List.of(), name, env, jvmOptions, args);
  }

  /**
   * As {@link #narwhal(String, String...)}, started through {@code launcher}: a command and its
   * options (e.g. {@code nohup}) that then runs the router's command line.
   */
  static ChildProcess narwhalThrough(List<String> launcher, String name, String... args) {
    return start(launcher, name, java.util.Map.of(), List.of(), args);
  }

  /**
   * As {@link #narwhal(String, java.util.Map, List, String...)}, with the child's stderr written
   * whole to {@code stderr} (a chatty log at DEBUG or TRACE, read back entire by the test) instead
   * of kept in the tail.
   */
  static ChildProcess narwhalLoggingTo(Path stderr, String name, java.util.Map<String, String> env,
      List<String> jvmOptions, String... args) {
    return start(List.of(), name, env, jvmOptions, stderr, args);
  }

  private static ChildProcess start(List<String> launcher, String name, java.util.Map<String, String> env,
      List<String> jvmOptions, String... args) {
    return start(launcher, name, env, jvmOptions, null, args);
  }

  private static ChildProcess start(List<String> launcher, String name, java.util.Map<String, String> env,
      List<String> jvmOptions, @Nullable Path stderr, String... args) {
    List<String> command = new ArrayList<>(launcher);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("narwhal.server.Narwhal");
    command.addAll(List.of(args));
    try {
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().putAll(env);
      if (stderr != null) {
        builder.redirectError(stderr.toFile());
      }
      return new ChildProcess(name, builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + name, e);
    }
  }

  Process process() {
    return process;
  }

  /**
   * Waits for a stdout line matching {@code pattern} (printed at any time since the start) and
   * returns its first group; fails with the child's output if none comes within {@code timeout}
   * or the child's output ends first.
   */
  String awaitLine(Pattern pattern, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int scanned = 0;
    synchronized (this) {
      while (true) {
        for (; scanned < stdout.size(); scanned++) {
          Matcher m = pattern.matcher(stdout.get(scanned));
          if (m.find()) {
            return m.group(1);
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || !stdoutOpen) {
          throw new AssertionError(name + " printed no line matching /" + pattern + "/ "
              + (!stdoutOpen ? "before its stdout ended" : "within " + timeout) + "; its output:\n" + output());
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  /** The last lines the child wrote, stdout and stderr interleaved as they were read. */
  synchronized String output() {
    return String.join("\n", tail);
  }

  /**
   * Waits up to {@code limit} for the child to exit and for everything it wrote to be read, and
   * returns its exit status; fails, with its output, if it is still running.
   */
  int awaitExit(java.time.Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    boolean exited = process.waitFor(limit.toNanos(), TimeUnit.NANOSECONDS);
    if (!exited) {
      throw new AssertionError(name + " still running after " + limit + "; its output:\n" + output());
    }
    for (Thread reader : readers) {
      // The pipes close with the process: the readers end once they have taken the last lines.
      reader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    return process.exitValue();
  }

  /**
   * Sends the child SIGTERM and keeps reading what it writes while it stops. Not {@code
   * Process.destroy()}: that also closes this side's ends of the child's pipes, so every line the
   * child writes while shutting down (its drain and "stopped" lines) is lost.
   */
  void terminate() {
    process.toHandle().destroy();
  }

  /** The child's process id. */
  long pid() {
    return process.pid();
  }

  /** Sends the child {@code signal} (e.g. {@code STOP}, {@code CONT}, {@code KILL}) with kill(1). */
  void signal(String signal) throws InterruptedException {
    try {
      new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start()
          .waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True while the child runs (a stopped child runs). */
  boolean alive() {
    return process.isAlive();
  }

  /** Kills the child (SIGKILL) if it still runs and waits for it to go. */
  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  private void drain(InputStream in, String stream, boolean keep) {
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          synchronized (this) {
            if (keep) {
              stdout.add(line);
            }
            tail.addLast("[" + name + " " + stream + "] " + line);
            if (tail.size() > KEPT_LINES) {
              tail.removeFirst();
            }
            notifyAll();
          }
        }
      } catch (IOException e) {
        // The child went away; whatever it printed before is kept.
      } finally {
        synchronized (this) {
          if (keep) {
            stdoutOpen = false;
          }
          notifyAll();
        }
      }
    }, name + "-std" + stream);
    reader.setDaemon(true);
    readers.add(reader);
    reader.start();
  }
}
