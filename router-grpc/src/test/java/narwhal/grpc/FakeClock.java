package narwhal.grpc;

import io.grpc.Deadline;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import narwhal.testing.ManualScheduler;
import narwhal.time.Timer;

/**
 * One fake time for the router and for gRPC: the {@link ManualScheduler} the calls run on, a
 * {@link Deadline.Ticker} for client and server deadlines, and a {@link ScheduledExecutorService}
 * for gRPC's own timers (deadline cancellation), all advanced together by {@link #advanceMillis}.
 * With in-process transports on direct executors everything runs on the test's thread.
 */
final class FakeClock {

  final ManualScheduler scheduler = new ManualScheduler();
  final Deadline.Ticker ticker = new Deadline.Ticker() {
    @Override
    public long nanoTime() {
      return scheduler.nanoTime();
    }
  };
  final ScheduledExecutorService executor = new Executor();

  void advanceMillis(long millis) {
    scheduler.advanceMillis(millis);
  }

  void runPending() {
    scheduler.runPending();
  }

  /** Only what gRPC uses: one-shot and periodic timers, and {@code execute}. */
  private final class Executor extends AbstractExecutorService implements ScheduledExecutorService {

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      return new Task<>(delay, unit, () -> {
        command.run();
        return null;
      });
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      return new Task<>(delay, unit, callable);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
      return scheduleWithFixedDelay(command, initialDelay, period, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
      Periodic periodic = new Periodic(command, unit.toNanos(delay));
      periodic.arm(unit.toNanos(initialDelay));
      return periodic;
    }

    @Override
    public void execute(Runnable command) {
      scheduler.execute(command);
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return false;
    }
  }

  private abstract class Future<V> implements ScheduledFuture<V> {
    final long dueNanos;
    Timer timer = Timer.NONE;
    boolean done;
    boolean cancelled;
    V value;

    Future(long dueNanos) {
      this.dueNanos = dueNanos;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(dueNanos - scheduler.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (done) {
        return false;
      }
      cancelled = done = timer.cancel();
      return cancelled;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done;
    }

    @Override
    public V get() throws ExecutionException {
      if (!done) {
        throw new IllegalStateException("fake time: the task has not run; advance the clock first");
      }
      return value;
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws ExecutionException {
      return get();
    }
  }

  private final class Task<V> extends Future<V> {
    Task(long delay, TimeUnit unit, Callable<V> callable) {
      super(scheduler.nanoTime() + unit.toNanos(delay));
      timer = scheduler.schedule(() -> {
        done = true;
        try {
          value = callable.call();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, delay, unit);
    }
  }

  private final class Periodic extends Future<Void> {
    private final Runnable command;
    private final long periodNanos;

    Periodic(Runnable command, long periodNanos) {
      super(scheduler.nanoTime());
      this.command = command;
      this.periodNanos = periodNanos;
    }

    void arm(long delayNanos) {
      timer = scheduler.schedule(() -> {
        command.run();
        if (!cancelled) {
          arm(periodNanos);
        }
      }, delayNanos, TimeUnit.NANOSECONDS);
    }
  }
}
