package narwhal.bench.wakeup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The child processes of one run, destroyed together: by {@link #close()} on every way out of the
 * run (success, failure, exception), and by a shutdown hook should the harness be stopped with
 * Ctrl-C or SIGTERM first. Against SIGKILL, which runs no hook, each child watches its standard
 * input ({@link ChildArgs#exitWhenParentGoes}), whose pipe this process holds open.
 */
final class Children implements AutoCloseable {

  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private final Thread hook = new Thread(this::destroyAll, "wakeup-children");

  Children() {
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Starts {@code command}, its standard error to {@code stderr}, its standard output to {@code stdout}. */
  Process start(List<String> command, ProcessBuilder.Redirect stdout, Path stderr) {
    try {
      Files.createDirectories(stderr.getParent());
      Process p = new ProcessBuilder(command).redirectOutput(stdout)
          .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile())).start();
      processes.add(p);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + String.join(" ", command), e);
    }
  }

  @Override
  public void close() {
    destroyAll();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // Already shutting down: the hook runs (or ran) destroyAll itself.
    }
  }

  /** Closes each child's stdin (its cue to exit), then SIGTERM, then SIGKILL if it lingers. */
  private void destroyAll() {
    for (Process p : processes) {
      try {
        p.getOutputStream().close();
      } catch (IOException e) {
        // destroyed below anyway
      }
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          p.waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }
}
