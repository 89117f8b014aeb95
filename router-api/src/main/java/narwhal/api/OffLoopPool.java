package narwhal.api;

import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * The router's one pool for work too large for an event loop: decoding a large HTTP body,
 * validating a large gRPC message. Owned by the service (one pool, one setting for both
 * front-ends, shut down with the router); a front-end asks {@link #inline} first, and hops back to
 * its loop with the result itself.
 *
 * <p>Decoding is linear in the request, but a 4 MiB chat with 100k messages still takes hundreds
 * of milliseconds (seconds before the JIT has warmed up), and every other connection on the loop
 * would wait that long. The pool is small (it competes with the event loops for cores) and its
 * queue bounded; each queued request already holds an admission seat, so admission bounds it first,
 * and a full queue is answered 503 rather than decoded on the loop.
 */
public interface OffLoopPool extends AutoCloseable {

  /** Requests at least this large are decoded off the event loop, over either front-end. */
  int INLINE_LIMIT = 8 << 10;

  /** Whether work over {@code bytes} of request is cheap enough to do on the calling loop. */
  boolean inline(int bytes);

  /**
   * Runs {@code work} on the pool. Returns the task, to {@link #cancel} if the client leaves first,
   * or null when the queue is full (or the pool is shut down) and nothing was started.
   */
  @Nullable Future<?> run(Runnable work);

  /** Drops a task nobody waits for; frees its queue slot if it has not begun. */
  void cancel(Future<?> task);

  /** Stops the threads; a task still running finishes and its result is dropped. */
  @Override
  void close();

  /**
   * The router's pool: up to two daemon threads (one on a single core), {@link #INLINE_LIMIT},
   * and a queue of 256 requests.
   */
  static OffLoopPool create() {
    return new BoundedOffLoopPool(INLINE_LIMIT, Math.min(2, Runtime.getRuntime().availableProcessors()), 256);
  }

  /** A pool with its own settings (tests: a small inline limit, a short queue). */
  static OffLoopPool create(int inlineLimit, int threads, int queueCapacity) {
    return new BoundedOffLoopPool(inlineLimit, threads, queueCapacity);
  }
}
