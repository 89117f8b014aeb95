package narwhal.http;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import narwhal.api.InvalidRequestException;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * Turns completion bodies into requests without holding an event loop on a large one.
 *
 * <p>A body below {@link #INLINE_LIMIT} is decoded at once on the caller's loop: it costs
 * microseconds, and a thread hop would cost more. A larger one is decoded on a small pool of this
 * front-end's own threads, because decoding is linear in the body but a 4 MiB chat with 100k
 * messages still takes hundreds of milliseconds (seconds before the JIT has warmed up), and every
 * other connection on the loop would wait that long: {@code /health} stalls, deadlines expire
 * while bodies sit unread. The pool is small (it competes with the event loops for the same
 * cores) and its queue is bounded; each queued body already holds an admission seat, so in
 * practice admission bounds it first, and a full queue is answered 503 rather than parsed on the
 * loop.
 *
 * <p>Owned by one {@link HttpFrontEnd} and shut down with it.
 */
final class BodyDecoder implements AutoCloseable {

  /** Bodies at least this long are decoded off the event loop. */
  static final int INLINE_LIMIT = 8 << 10;

  private static final int QUEUE_CAPACITY = 256;

  /** The codec step; a seam for tests, which record the thread it runs on. */
  interface Parser {
    CompletionRequest parse(byte[] body, Route route, @Nullable String clientRequestId)
        throws InvalidRequestException;
  }

  /** What decoding produced: a request, the 400 the body earns, or an unexpected failure. */
  record Outcome(
      @Nullable CompletionRequest request,
      @Nullable InvalidRequestException invalid,
      @Nullable RuntimeException failure) {}

  private final Parser parser;
  private final int inlineLimit;
  private final ThreadPoolExecutor pool;

  BodyDecoder(Parser parser, int inlineLimit, int threads) {
    this.parser = parser;
    this.inlineLimit = inlineLimit;
    this.pool =
        new ThreadPoolExecutor(
            threads, threads, 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(QUEUE_CAPACITY), new DecoderThreads());
  }

  /** The front-end's decoder: OpenAI bodies, up to two threads (fewer on a single core). */
  static BodyDecoder create() {
    int threads = Math.min(2, Runtime.getRuntime().availableProcessors());
    return new BodyDecoder(OpenAiRequestCodec::parse, INLINE_LIMIT, threads);
  }

  /** True when {@code bodyBytes} is small enough to decode on the calling loop. */
  boolean decodesInline(int bodyBytes) {
    return bodyBytes < inlineLimit;
  }

  /** Decodes on the calling thread. */
  Outcome decodeNow(byte[] body, Route route, @Nullable String clientRequestId) {
    try {
      return new Outcome(parser.parse(body, route, clientRequestId), null, null);
    } catch (InvalidRequestException e) {
      return new Outcome(null, e, null);
    } catch (RuntimeException e) {
      return new Outcome(null, null, e);
    }
  }

  /**
   * Decodes on the pool; {@code done} runs there with the outcome (the caller hops back to its
   * loop). Returns the task, to cancel if the client leaves first, or null when the queue is full
   * (or the decoder is closed) and nothing was started.
   */
  @Nullable Future<?> decodeLater(
      byte[] body, Route route, @Nullable String clientRequestId, Consumer<Outcome> done) {
    try {
      return pool.submit(() -> done.accept(decodeNow(body, route, clientRequestId)));
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  /** Drops a decode the client no longer waits for; frees its queue slot (and body) if not begun. */
  void cancel(Future<?> task) {
    task.cancel(false);
    if (task instanceof Runnable) {
      pool.remove((Runnable) task);
    }
  }

  /** Stops the threads; a decode still running finishes and its result is dropped. */
  @Override
  public void close() {
    pool.shutdownNow();
  }

  private static final class DecoderThreads implements ThreadFactory {
    private static final AtomicInteger POOLS = new AtomicInteger();
    private final int pool = POOLS.incrementAndGet();
    private final AtomicInteger threads = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread t = new Thread(task, "narwhal-http-decode-" + pool + "-" + threads.incrementAndGet());
      // Never keeps the JVM alive: the front-end's close stops it, and so does exit.
      t.setDaemon(true);
      return t;
    }
  }
}
