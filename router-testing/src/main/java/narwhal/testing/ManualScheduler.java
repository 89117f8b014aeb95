package narwhal.testing;

import narwhal.time.Scheduler;
import narwhal.time.Timer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Scheduler} whose time moves only when a test says so.
 *
 * <p>A test double: it lives in the test kit (router-testing), which every module uses at test
 * scope. Submitted tasks run when the test calls {@link #runPending()} or {@link #advance}; timers fire
 * in deadline order as time passes them. Everything runs on the test's thread, so timeout logic is
 * tested exactly and without sleeping: {@code advance(2499, MILLISECONDS)} shows nothing fired,
 * {@code advance(1, MILLISECONDS)} shows the timeout.
 */
public final class ManualScheduler implements Scheduler {

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(Comparator.comparingLong((Task t) -> t.dueNanos).thenComparingLong(t -> t.seq));
  private long nowNanos;
  private long seq;
  private boolean running;

  public ManualScheduler() {
    this(TimeUnit.SECONDS.toNanos(1_000));
  }

  public ManualScheduler(long startNanos) {
    this.nowNanos = startNanos;
  }

  @Override
  public long nanoTime() {
    return nowNanos;
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public Timer schedule(Runnable task, long delay, TimeUnit unit) {
    Task t = new Task(nowNanos + Math.max(0, unit.toNanos(delay)), seq++, task);
    tasks.add(t);
    return () -> !t.done && (t.done = true) && tasks.remove(t);
  }

  /** Tests drive everything from one thread, so the test thread counts as the loop. */
  @Override
  public boolean inLoop() {
    return true;
  }

  /** Runs every task that is due now, including tasks those tasks submit. */
  public int runPending() {
    return runUntil(nowNanos);
  }

  /** Moves time forward, running each timer at its own due time. */
  public int advance(long amount, TimeUnit unit) {
    return runUntil(nowNanos + unit.toNanos(amount));
  }

  public int advanceMillis(long millis) {
    return advance(millis, TimeUnit.MILLISECONDS);
  }

  /** Timers and tasks not yet run. */
  public int pendingTasks() {
    return tasks.size();
  }

  /** Due times (relative to now, in ms) of the pending timers; for assertions on what is armed. */
  public List<Long> pendingDelaysMillis() {
    List<Long> out = new ArrayList<>();
    for (Task t : tasks) {
      out.add(TimeUnit.NANOSECONDS.toMillis(t.dueNanos - nowNanos));
    }
    out.sort(null);
    return out;
  }

  private int runUntil(long targetNanos) {
    if (running) {
      throw new IllegalStateException("ManualScheduler is not reentrant: called from a task");
    }
    running = true;
    int ran = 0;
    try {
      while (!tasks.isEmpty() && tasks.peek().dueNanos <= targetNanos) {
        Task t = tasks.poll();
        nowNanos = Math.max(nowNanos, t.dueNanos);
        t.done = true;
        t.runnable.run();
        ran++;
      }
      nowNanos = Math.max(nowNanos, targetNanos);
    } finally {
      running = false;
    }
    return ran;
  }

  private static final class Task {
    final long dueNanos;
    final long seq;
    final Runnable runnable;
    boolean done;

    Task(long dueNanos, long seq, Runnable runnable) {
      this.dueNanos = dueNanos;
      this.seq = seq;
      this.runnable = runnable;
    }
  }
}
