package narwhal.engine.http;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded waiting for real-socket effects (no fixed sleeps). */
final class Poll {

  private Poll() {}

  /** Waits until {@code condition} holds; fails with {@code what} after {@code limit}. */
  static void until(String what, Duration limit, BooleanSupplier condition) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + limit + " waiting for: " + what);
      }
      pause(5);
    }
  }

  static void until(String what, BooleanSupplier condition) {
    until(what, Duration.ofSeconds(10), condition);
  }

  /** A short real-time wait, for sampling something that must *not* change. */
  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
