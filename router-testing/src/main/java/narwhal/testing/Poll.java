package narwhal.testing;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded waiting for what happens over real sockets on other threads (an engine seeing its stream
 * closed, the breaker moving an engine): returns as soon as the condition holds, fails with what it
 * waited for when it never does. Never a timeout test: those run on the manual clock. The limit is
 * generous because CI machines are shared and a passing wait costs nothing.
 */
public final class Poll {

  /** How long {@link #until(String, BooleanSupplier)} waits. */
  public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(10);

  private Poll() {}

  /** Waits until {@code condition} holds; fails naming {@code what} after {@link #DEFAULT_LIMIT}. */
  public static void until(String what, BooleanSupplier condition) {
    until(what, DEFAULT_LIMIT, condition);
  }

  /** Waits until {@code condition} holds; fails naming {@code what} after {@code limit}. */
  public static void until(String what, Duration limit, BooleanSupplier condition) {
    until(limit, condition, () -> what);
  }

  /** As {@link #until(String, Duration, BooleanSupplier)}, the description computed on failure. */
  public static void until(Duration limit, BooleanSupplier condition, Supplier<String> what) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("gave up after " + limit.toMillis() + " ms waiting for " + what.get());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what.get());
      }
    }
  }

  /** A short real-time wait, for sampling something that must <em>not</em> change meanwhile. */
  public static void pause(long millis) {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    if (Thread.interrupted()) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
  }
}
