package narwhal.engine.http;

import java.util.concurrent.TimeUnit;
import narwhal.testing.ManualScheduler;
import narwhal.time.Scheduler;
import narwhal.time.Timer;

/**
 * A {@link ManualScheduler} that other threads may submit to. The transport submits callbacks from
 * its event loop, while ManualScheduler expects a single thread; the lock is all this adds.
 */
final class LockedManualScheduler implements Scheduler {

  private final ManualScheduler manual = new ManualScheduler();

  @Override
  public synchronized long nanoTime() {
    return manual.nanoTime();
  }

  @Override
  public synchronized Timer schedule(Runnable task, long delay, TimeUnit unit) {
    return manual.schedule(task, delay, unit);
  }

  @Override
  public synchronized boolean inLoop() {
    return manual.inLoop();
  }

  @Override
  public synchronized void execute(Runnable command) {
    manual.execute(command);
  }

  synchronized int runPending() {
    return manual.runPending();
  }

  synchronized int pendingTasks() {
    return manual.pendingTasks();
  }
}
