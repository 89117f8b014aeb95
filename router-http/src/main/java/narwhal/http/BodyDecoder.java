package narwhal.http;

import java.util.concurrent.Future;
import java.util.function.Consumer;
import narwhal.api.InvalidRequestException;
import narwhal.api.OffLoopPool;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * Turns completion bodies into requests without holding an event loop on a large one: a body
 * the router's {@link OffLoopPool} calls cheap is decoded at once on the caller's loop (it costs
 * microseconds, and a thread hop would cost more); a larger one on that pool, whose reasons and
 * bounds its documentation gives. The pool is the router's (one for both front-ends); this class
 * only adds the OpenAI codec.
 */
final class BodyDecoder {

  /** The codec step; a seam for tests, which record the thread it runs on. */
  interface Parser {
    CompletionRequest parse(byte[] body, Route route, @Nullable String clientRequestId)
        throws InvalidRequestException;
  }

  /** What decoding produced: a request, the 400 the body earns, or an unexpected failure. */
  record Decoded(
      @Nullable CompletionRequest request,
      @Nullable InvalidRequestException invalid,
      @Nullable RuntimeException failure) {}

  private final Parser parser;
  private final OffLoopPool pool;

  BodyDecoder(Parser parser, OffLoopPool pool) {
    this.parser = parser;
    this.pool = pool;
  }

  /** OpenAI bodies, on {@code pool}. */
  static BodyDecoder openAi(OffLoopPool pool) {
    return new BodyDecoder(OpenAiRequestCodec::parse, pool);
  }

  /** True when {@code bodyBytes} is small enough to decode on the calling loop. */
  boolean decodesInline(int bodyBytes) {
    return pool.inline(bodyBytes);
  }

  /** Decodes on the calling thread. */
  Decoded decodeNow(byte[] body, Route route, @Nullable String clientRequestId) {
    try {
      return new Decoded(parser.parse(body, route, clientRequestId), null, null);
    } catch (InvalidRequestException e) {
      return new Decoded(null, e, null);
    } catch (RuntimeException e) {
      return new Decoded(null, null, e);
    }
  }

  /**
   * Decodes on the pool; {@code done} runs there with the outcome (the caller hops back to its
   * loop). Returns the task, to cancel if the client leaves first, or null when the queue is full
   * (or the pool is closed) and nothing was started.
   */
  @Nullable Future<?> decodeLater(
      byte[] body, Route route, @Nullable String clientRequestId, Consumer<Decoded> done) {
    return pool.run(() -> done.accept(decodeNow(body, route, clientRequestId)));
  }

  /** Drops a decode the client no longer waits for; frees its queue slot (and body) if not begun. */
  void cancel(Future<?> task) {
    pool.cancel(task);
  }
}
