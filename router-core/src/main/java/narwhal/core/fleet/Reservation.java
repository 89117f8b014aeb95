package narwhal.core.fleet;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One phase slot held on one engine by one request. The request that took it owns it and
 * releases it on every path; releasing twice is harmless (the second call does nothing), so
 * cleanup code can release unconditionally.
 */
public final class Reservation {

  private final EngineState engine;
  private final AtomicInteger counter;
  private final AtomicLong tokenCounter;
  private final long tokens;
  /** Where the square of {@code tokens} is summed (prefill: its quadratic cost), or null. */
  private final @Nullable AtomicLong squareCounter;
  private final AtomicBoolean released = new AtomicBoolean();

  /** The weight added to the square counter (prefill: L² less the cached prefix's c²). */
  private final long squares;

  Reservation(EngineState engine, AtomicInteger counter, AtomicLong tokenCounter, long tokens,
      @Nullable AtomicLong squareCounter) {
    this(engine, counter, tokenCounter, tokens, squareCounter, Math.max(0, tokens) * Math.max(0, tokens));
  }

  Reservation(EngineState engine, AtomicInteger counter, AtomicLong tokenCounter, long tokens,
      @Nullable AtomicLong squareCounter, long squares) {
    this.engine = engine;
    this.counter = counter;
    this.tokenCounter = tokenCounter;
    this.tokens = Math.max(0, tokens);
    this.squareCounter = squareCounter;
    this.squares = Math.max(0, squares);
    counter.incrementAndGet();
    tokenCounter.addAndGet(this.tokens);
    if (squareCounter != null) {
      squareCounter.addAndGet(this.squares);
    }
  }

  public EngineState engine() {
    return engine;
  }

  /** The tokens this reservation weighs on its engine's resident total. */
  public long tokens() {
    return tokens;
  }

  public void release() {
    if (released.compareAndSet(false, true)) {
      counter.decrementAndGet();
      tokenCounter.addAndGet(-tokens);
      if (squareCounter != null) {
        squareCounter.addAndGet(-squares);
      }
    }
  }

  public boolean isReleased() {
    return released.get();
  }
}
