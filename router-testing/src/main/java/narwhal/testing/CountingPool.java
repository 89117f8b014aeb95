package narwhal.testing;

import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import narwhal.api.OffLoopPool;
import org.jspecify.annotations.Nullable;

/**
 * An {@link OffLoopPool} that counts the tasks it ran to the end, so a test can wait (with {@link
 * Poll}) for work done off the loop to have finished, and for whatever it handed back to its loop
 * to be queued there, instead of sleeping.
 */
public final class CountingPool implements OffLoopPool {

  private final OffLoopPool pool;
  private final AtomicInteger finished = new AtomicInteger();

  public CountingPool(OffLoopPool pool) {
    this.pool = pool;
  }

  /** Tasks that ran to the end (a result handed back to a loop was queued there before this counted it). */
  public int finished() {
    return finished.get();
  }

  @Override
  public boolean inline(int bytes) {
    return pool.inline(bytes);
  }

  @Override
  public @Nullable Future<?> run(Runnable work) {
    return pool.run(() -> {
      try {
        work.run();
      } finally {
        finished.incrementAndGet();
      }
    });
  }

  @Override
  public void cancel(Future<?> task) {
    pool.cancel(task);
  }

  @Override
  public void close() {
    pool.close();
  }
}
