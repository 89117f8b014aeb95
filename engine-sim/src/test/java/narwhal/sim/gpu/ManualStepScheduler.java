package narwhal.sim.gpu;

import java.util.concurrent.TimeUnit;
import narwhal.testing.ManualScheduler;
import narwhal.time.Timer;

/** The router's manual clock as a {@link StepScheduler}: step loops run on the test's thread, time moves on demand. */
final class ManualStepScheduler implements StepScheduler {
  final ManualScheduler clock = new ManualScheduler(0);

  @Override
  public long nanoTime() {
    return clock.nanoTime();
  }

  @Override
  public void execute(Runnable task) {
    clock.execute(task);
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    Timer timer = clock.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    return timer::cancel;
  }

  /** Runs what is due now. */
  void runPending() {
    clock.runPending();
  }

  /** Moves time on by {@code millis} (fractions allowed), running every timer on its way. */
  void advanceMillis(double millis) {
    clock.advance(Math.round(millis * 1_000_000), TimeUnit.NANOSECONDS);
  }

  /** Runs everything until nothing is left to run (bounded, so a busy loop fails the test). */
  void runToIdle() {
    for (int i = 0; i < 1_000_000 && clock.pendingTasks() > 0; i++) {
      clock.advance(1, TimeUnit.MILLISECONDS);
    }
    if (clock.pendingTasks() > 0) {
      throw new AssertionError("the step loop never went idle");
    }
  }

  double nowMillis() {
    return clock.nanoTime() / 1e6;
  }
}
