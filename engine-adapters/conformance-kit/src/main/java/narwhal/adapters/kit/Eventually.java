package narwhal.adapters.kit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded waits for what happens on other threads (engines, the router's loop). Only for
 * real-socket outcomes; timeout logic itself is never judged by wall time here.
 */
final class Eventually {

  private Eventually() {}

  static void await(Duration limit, BooleanSupplier condition, Supplier<String> what) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("gave up after " + limit.toMillis() + " ms waiting for " + what.get());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }
}
