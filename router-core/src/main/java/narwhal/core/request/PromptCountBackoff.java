package narwhal.core.request;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * Engines whose tokenize route just failed are not asked again for a while: 1 s after a failure,
 * doubling with each failure in a row up to 30 s; a count that succeeds clears it. Without this a
 * slow or broken route would cost every request up to {@code engine.tokenize_timeout_s} before
 * it falls back to the estimate anyway. Thread-safe: one immutable entry per engine, swapped
 * atomically.
 */
final class PromptCountBackoff {

  static final long FIRST_NANOS = TimeUnit.SECONDS.toNanos(1);
  static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(30);

  /** Counts are held off {@code engine} until {@code untilNanos}; the next failure waits {@code nextNanos}. */
  private record Hold(long untilNanos, long nextNanos) {}

  private final ConcurrentMap<String, Hold> holds = new ConcurrentHashMap<>();

  /** True while counts on {@code iid} are held off. */
  boolean holdsOff(String iid, long nowNanos) {
    Hold h = holds.get(iid);
    return h != null && nowNanos - h.untilNanos < 0;
  }

  /** A count on {@code iid} failed at {@code nowNanos}: hold counts off; returns how long. */
  long failed(String iid, long nowNanos) {
    Hold h = holds.compute(iid, (k, previous) -> {
      long wait = previous == null ? FIRST_NANOS : previous.nextNanos;
      return new Hold(nowNanos + wait, Math.min(MAX_NANOS, wait * 2));
    });
    return h.untilNanos - nowNanos;
  }

  /** A count on {@code iid} succeeded: the next failure starts from 1 s again. */
  void succeeded(String iid) {
    if (!holds.isEmpty()) {
      holds.remove(iid);
    }
  }
}
