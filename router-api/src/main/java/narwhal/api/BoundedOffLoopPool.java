package narwhal.api;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/** {@link OffLoopPool} on a fixed set of daemon threads with a bounded queue. */
final class BoundedOffLoopPool implements OffLoopPool {

  private final int inlineLimit;
  private final ThreadPoolExecutor pool;

  BoundedOffLoopPool(int inlineLimit, int threads, int queueCapacity) {
    this.inlineLimit = inlineLimit;
    this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(queueCapacity), new Threads());
  }

  @Override
  public boolean inline(int bytes) {
    return bytes < inlineLimit;
  }

  @Override
  public @Nullable Future<?> run(Runnable work) {
    try {
      return pool.submit(work);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  @Override
  public void cancel(Future<?> task) {
    task.cancel(false);
    if (task instanceof Runnable runnable) {
      pool.remove(runnable);
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }

  private static final class Threads implements ThreadFactory {
    private static final AtomicInteger POOLS = new AtomicInteger();
    private final int pool = POOLS.incrementAndGet();
    private final AtomicInteger threads = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread t = new Thread(task, "narwhal-decode-" + pool + "-" + threads.incrementAndGet());
      // Never keeps the JVM alive: the router's close stops it, and so does exit.
      t.setDaemon(true);
      return t;
    }
  }
}
