package narwhal.grpc;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import narwhal.api.InvalidRequestException;
import narwhal.api.RouterError;
import narwhal.api.ServedModel;
import narwhal.openai.StructuredRequests;
import narwhal.proto.v1.CompletionRequest;
import org.jspecify.annotations.Nullable;

/**
 * Validates request messages without holding an event loop on a large one: the gRPC counterpart
 * of the HTTP front-end's body decoder.
 *
 * <p>Validation writes the message out as the OpenAI body it stands for and reads that back with
 * the HTTP codec (one set of rules for both front-ends). That is linear in the message, but a
 * 3 MiB chat of 100k messages takes 300-700 ms warm (about 2 s cold; pinning the model is
 * negligible), and every other call on the loop would wait that long. So a message of at least
 * {@link #INLINE_LIMIT} bytes is validated on a small pool of this front-end's own threads, and the
 * outcome hops back to the call's loop; a smaller one costs microseconds and is validated in place.
 * The pool is small (it competes with the event loops for cores) and its queue bounded; a full
 * queue is answered 503 rather than validated on the loop.
 *
 * <p>Owned by one {@link GrpcFrontEnd} and shut down with it.
 */
final class RequestValidator implements AutoCloseable {

  /** Messages at least this large are validated off the event loop. */
  static final int INLINE_LIMIT = 64 << 10;

  private static final int QUEUE_CAPACITY = 64;

  /** The validation step: the codec's rules, then the served model; a seam for tests. */
  interface Check {
    CompletionRequest apply(CompletionRequest shaped, String servedModel) throws InvalidRequestException;

    static Check standard() {
      return (shaped, served) -> ServedModel.pin(StructuredRequests.validate(shaped), served);
    }
  }

  /** What validation produced: the request to submit, the refusal it earns, or a bug. */
  record Outcome(
      @Nullable CompletionRequest request,
      @Nullable InvalidRequestException invalid,
      @Nullable RuntimeException failure) {}

  private final Check check;
  private final int inlineLimit;
  private final ThreadPoolExecutor pool;

  RequestValidator(Check check, int inlineLimit, int threads) {
    this.check = check;
    this.inlineLimit = inlineLimit;
    this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(QUEUE_CAPACITY), new ValidatorThreads());
  }

  /** The front-end's validator: up to two threads (one on a single core). */
  static RequestValidator create() {
    return new RequestValidator(Check.standard(), INLINE_LIMIT,
        Math.min(2, Runtime.getRuntime().availableProcessors()));
  }

  /** True when a message of {@code bytes} is cheap enough to validate on the calling loop. */
  boolean validatesInline(int bytes) {
    return bytes < inlineLimit;
  }

  /** Validates on the calling thread. */
  Outcome validateNow(CompletionRequest shaped, String servedModel) {
    try {
      return new Outcome(check.apply(shaped, servedModel), null, null);
    } catch (InvalidRequestException e) {
      return new Outcome(null, e, null);
    } catch (RuntimeException e) {
      return new Outcome(null, null, e);
    }
  }

  /**
   * Validates on the pool; {@code done} runs there with the outcome (the caller hops back to its
   * loop). Returns the task, to cancel if the client leaves first, or null when the queue is full
   * (or the validator is closed) and nothing was started.
   */
  @Nullable Future<?> validateLater(CompletionRequest shaped, String servedModel, Consumer<Outcome> done) {
    try {
      return pool.submit(() -> done.accept(validateNow(shaped, servedModel)));
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  /** Validations waiting for a thread. */
  int queued() {
    return pool.getQueue().size();
  }

  /** Drops a validation the call no longer waits for; frees its queue slot if not begun. */
  void cancel(Future<?> task) {
    task.cancel(false);
    if (task instanceof Runnable runnable) {
      pool.remove(runnable);
    }
  }

  /** The answer when the queue is full: 503, retry shortly (HTTP's decoder answers the same). */
  static RouterError busy() {
    return RouterError.of(503, "server_overloaded_error", null,
            "router is busy validating other large requests; retry shortly")
        .withRetryAfter(1);
  }

  /** Stops the threads; a validation still running finishes and its result is dropped. */
  @Override
  public void close() {
    pool.shutdownNow();
  }

  private static final class ValidatorThreads implements ThreadFactory {
    private static final AtomicInteger POOLS = new AtomicInteger();
    private final int pool = POOLS.incrementAndGet();
    private final AtomicInteger threads = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread t = new Thread(task, "narwhal-grpc-validate-" + pool + "-" + threads.incrementAndGet());
      t.setDaemon(true); // never keeps the JVM alive: the front-end's close stops it
      return t;
    }
  }
}
