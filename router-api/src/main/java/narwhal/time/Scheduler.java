package narwhal.time;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The serial executor and the clock a request runs on.
 *
 * <p>Every deadline and timer in the router goes through one of these, so timeout logic is tested
 * exactly with a fake (router-testing's {@code narwhal.testing.ManualScheduler}) and runs on a Netty event loop in
 * production. Tasks submitted to one scheduler run one at a time, in order: a request's state
 * machine is confined to its scheduler and needs no locks.
 */
public interface Scheduler extends Executor {

  /** Monotonic time in nanoseconds; only differences are meaningful. */
  long nanoTime();

  /** Runs {@code task} on this scheduler after {@code delay}; a non-positive delay runs it soon. */
  Timer schedule(Runnable task, long delay, TimeUnit unit);

  /** True when the caller is already running on this scheduler. */
  boolean inLoop();

  /** Runs {@code task} now if already on this scheduler, else submits it. */
  default void runInLoop(Runnable task) {
    if (inLoop()) {
      task.run();
    } else {
      execute(task);
    }
  }
}
