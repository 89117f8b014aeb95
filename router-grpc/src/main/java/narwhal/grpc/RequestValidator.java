package narwhal.grpc;

import java.util.concurrent.Future;
import java.util.function.Consumer;
import narwhal.api.InvalidRequestException;
import narwhal.api.OffLoopPool;
import narwhal.api.RouterError;
import narwhal.openai.StructuredRequests;
import narwhal.proto.v1.CompletionRequest;
import org.jspecify.annotations.Nullable;

/**
 * Validates request messages without holding an event loop on a large one: the gRPC counterpart
 * of the HTTP front-end's body decoder, on the same pool (the router's {@link OffLoopPool}).
 *
 * <p>Validation writes the message out as the OpenAI body it stands for and reads that back with
 * the HTTP codec (one set of rules for both front-ends). That is linear in the message: a 3 MiB
 * chat of 100k messages takes 300-700 ms warm (about 2 s cold), and every other call on the loop
 * would wait that long. The pool decides what is cheap enough to validate in place.
 */
final class RequestValidator {

  /** The validation step: the codec's rules; a seam for tests. */
  interface Check {
    CompletionRequest apply(CompletionRequest shaped) throws InvalidRequestException;

    static Check standard() {
      return StructuredRequests::validate;
    }
  }

  /** What validation produced: the request to submit, the refusal it earns, or a bug. */
  record Validated(
      @Nullable CompletionRequest request,
      @Nullable InvalidRequestException invalid,
      @Nullable RuntimeException failure) {}

  private final Check check;
  private final OffLoopPool pool;

  RequestValidator(Check check, OffLoopPool pool) {
    this.check = check;
    this.pool = pool;
  }

  /** True when a message of {@code bytes} is cheap enough to validate on the calling loop. */
  boolean validatesInline(int bytes) {
    return pool.inline(bytes);
  }

  /** Validates on the calling thread. */
  Validated validateNow(CompletionRequest shaped) {
    try {
      return new Validated(check.apply(shaped), null, null);
    } catch (InvalidRequestException e) {
      return new Validated(null, e, null);
    } catch (RuntimeException e) {
      return new Validated(null, null, e);
    }
  }

  /**
   * Validates on the pool; {@code done} runs there with the outcome (the caller hops back to its
   * loop). Returns the task, to cancel if the client leaves first, or null when the queue is full
   * (or the pool is closed) and nothing was started.
   */
  @Nullable Future<?> validateLater(CompletionRequest shaped, Consumer<Validated> done) {
    return pool.run(() -> done.accept(validateNow(shaped)));
  }

  /** Drops a validation the call no longer waits for; frees its queue slot if not begun. */
  void cancel(Future<?> task) {
    pool.cancel(task);
  }

  /** The answer when the queue is full: 503, retry shortly (HTTP's decoder answers the same). */
  static RouterError busy() {
    return RouterError.of(503, "server_overloaded_error", null,
            "router is busy validating other large requests; retry shortly")
        .withRetryAfter(1);
  }
}
