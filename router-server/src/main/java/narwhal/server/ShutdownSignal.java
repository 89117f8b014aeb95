package narwhal.server;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * SIGTERM (or Ctrl-C) handling for a long-running command: {@link #install} registers the JVM
 * shutdown hook at once, as soon as there is something to stop, and {@link #awaitThenClose} parks
 * the main thread until the signal and then closes the command's resources in order.
 *
 * <p>Two steps because the hook must exist before the command announces it is ready: a signal
 * that arrived between "serving" and the hook's registration used to end the JVM with no drain and
 * no final log line. A signal that comes before {@link #awaitThenClose} is remembered, and the
 * resources are closed as soon as the main thread gets there.
 */
final class ShutdownSignal {

  private final Object lock = new Object();
  private boolean stopping; // guarded by lock
  private final CountDownLatch closed = new CountDownLatch(1);

  private ShutdownSignal() {}

  /**
   * Registers the hook now. The JVM's exit waits up to 15 s plus {@code grace} (a router draining
   * its in-flight requests) for the resources to close.
   */
  static ShutdownSignal install(Duration grace) {
    ShutdownSignal signal = new ShutdownSignal();
    // The hook waits for the resources to close, not for the main thread to end: main goes on to
    // System.exit, which blocks while hooks run, and waiting for it would stall the JVM's exit.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      synchronized (signal.lock) {
        signal.stopping = true;
        signal.lock.notifyAll();
      }
      try {
        signal.closed.await(15_000 + grace.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "narwhal-shutdown"));
    return signal;
  }

  /** Blocks the calling (main) thread until the process is asked to stop, then closes {@code resources}. */
  void awaitThenClose(AutoCloseable... resources) {
    synchronized (lock) {
      while (!stopping) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        System.err.println("narwhal: error while stopping: " + e);
      }
    }
    closed.countDown();
  }
}
