package narwhal.it;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waits for something that happens over real sockets in another thread (an engine seeing its
 * stream closed, the breaker moving an engine). Not a timeout test: those run on the manual clock.
 * Generous, since it returns as soon as the condition holds and CI machines are shared.
 */
final class Eventually {

  private Eventually() {}

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(2);
    }
  }
}
