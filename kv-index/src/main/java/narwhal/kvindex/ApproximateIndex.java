package narwhal.kvindex;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import narwhal.prefix.PromptBlocks;

/**
 * One engine's prefix cache as the router guesses it from its own placements, for engines that
 * publish no KV events: every block of a prompt the router sent to the engine is believed held for
 * {@code ttlNanos} after the last time it was sent. A guess, and said to be one (its trust is
 * {@code approximate}); the self-check compares it with what the engine reports like any index.
 *
 * <p>Thread-safe and lock-free: placements record from every event loop, lookups read from every
 * event loop. At most {@code capacity} blocks are kept; past it the oldest placements go first
 * (also swept when they expire, by {@link #sweep}).
 */
final class ApproximateIndex {

  private record Placed(long hash, long expiresAt) {}

  private final long ttlNanos;
  private final int capacity;
  private final LongSupplier clock;
  /** Block → when it is believed gone. */
  private final Map<Long, Long> expiry = new ConcurrentHashMap<>();
  /** Placements in the order made, for expiry and the cap. */
  private final ConcurrentLinkedQueue<Placed> order = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();

  ApproximateIndex(long ttlNanos, int capacity, LongSupplier clock) {
    this.ttlNanos = ttlNanos;
    this.capacity = capacity;
    this.clock = clock;
  }

  int size() {
    return expiry.size();
  }

  int cachedBlocks(PromptBlocks prompt) {
    long now = clock.getAsLong();
    int max = prompt.maxHitBlocks();
    int n = 0;
    while (n < max) {
      Long until = expiry.get(prompt.hash(n));
      if (until == null || until - now <= 0) {
        break;
      }
      n++;
    }
    return n;
  }

  /** The engine was sent {@code prompt}: all its full blocks are believed held from now. */
  void placed(PromptBlocks prompt) {
    long until = clock.getAsLong() + ttlNanos;
    for (int i = 0; i < prompt.blockCount(); i++) {
      long h = prompt.hash(i);
      expiry.put(h, until);
      order.add(new Placed(h, until));
      queued.incrementAndGet();
    }
    while (queued.get() > 2 * capacity || expiry.size() > capacity) {
      if (!dropOldest()) {
        break;
      }
    }
  }

  /** Forgets what has expired. Any thread; the index thread calls it periodically. */
  void sweep() {
    long now = clock.getAsLong();
    Placed head;
    while ((head = order.peek()) != null && head.expiresAt() - now <= 0) {
      dropOldest();
    }
  }

  void clear() {
    expiry.clear();
  }

  private boolean dropOldest() {
    Placed p = order.poll();
    if (p == null) {
      return false;
    }
    queued.decrementAndGet();
    // Only if not placed again since: a later placement keeps the block.
    expiry.remove(p.hash(), p.expiresAt());
    return true;
  }
}
