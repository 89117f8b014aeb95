package narwhal.sim.gpu;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The serial executor a {@link StepLoop} runs on, and its timers. Tasks run one at a time in
 * submission order, so the loop needs no locks. In production it is one of the engine's Netty
 * event loops ({@link #on(EventExecutor)}); tests adapt a manual clock, so every step duration is
 * checked exactly and nothing sleeps.
 */
public interface StepScheduler extends Executor {

  /** The scheduler's clock, in nanoseconds; only differences mean anything. */
  long nanoTime();

  /** Runs {@code task} on this scheduler after {@code delayNanos} (0: soon). */
  Cancellable schedule(Runnable task, long delayNanos);

  /** A timer that can be called off before it fires. */
  @FunctionalInterface
  interface Cancellable {
    /** Stops the task from running if it has not run yet; no effect afterwards. */
    void cancel();
  }

  /** A scheduler on a Netty event executor. */
  static StepScheduler on(EventExecutor executor) {
    return new StepScheduler() {
      @Override
      public long nanoTime() {
        return executor.ticker().nanoTime(); // the clock its timers run on
      }

      @Override
      public void execute(Runnable task) {
        executor.execute(task);
      }

      @Override
      public Cancellable schedule(Runnable task, long delayNanos) {
        ScheduledFuture<?> future = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
      }
    };
  }
}
