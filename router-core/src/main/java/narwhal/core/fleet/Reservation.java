package narwhal.core.fleet;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One phase slot held on one engine by one request. The request that took it owns it and
 * releases it on every path; releasing twice is harmless (the second call does nothing), so
 * cleanup code can release unconditionally.
 */
public final class Reservation {

  private final EngineState engine;
  private final AtomicInteger counter;
  private final AtomicBoolean released = new AtomicBoolean();

  Reservation(EngineState engine, AtomicInteger counter) {
    this.engine = engine;
    this.counter = counter;
    counter.incrementAndGet();
  }

  public EngineState engine() {
    return engine;
  }

  public void release() {
    if (released.compareAndSet(false, true)) {
      counter.decrementAndGet();
    }
  }

  public boolean isReleased() {
    return released.get();
  }
}
