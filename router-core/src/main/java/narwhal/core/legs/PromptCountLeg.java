package narwhal.core.legs;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineSpec;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TransportFailure;
import narwhal.time.Durations;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * One exact prompt count: the dialect's tokenize request, bounded by {@code
 * engine.tokenize_timeout_s}, its answer read by the dialect (the count, and the token ids when
 * asked: cache-aware placement hashes them). The future completes on the loop with the {@link
 * PromptTokens} or with a {@link PromptCountFailure}; cancelling it abandons the exchange.
 * Confined to its loop.
 */
final class PromptCountLeg implements OneShotExchange.Outcome {

  private final EngineTransport transport;
  private final EngineDialect dialect;
  private final EngineSpec engine;
  private final EngineHttpRequest httpRequest;
  private final long timeoutNanos;
  private final ExchangeOptions options;
  private final Scheduler loop;
  private final boolean wantIds;
  private final CompletableFuture<PromptTokens> result = new CompletableFuture<>();

  private @Nullable OneShotExchange exchange;

  PromptCountLeg(EngineTransport transport, EngineDialect dialect, EngineSpec engine, EngineHttpRequest httpRequest,
      long timeoutNanos, ExchangeOptions options, Scheduler loop, boolean wantIds) {
    this.wantIds = wantIds;
    this.transport = transport;
    this.dialect = dialect;
    this.engine = engine;
    this.httpRequest = httpRequest;
    this.timeoutNanos = timeoutNanos;
    this.options = options;
    this.loop = loop;
    result.whenComplete((count, e) -> {
      if (e instanceof CancellationException) {
        loop.runInLoop(this::abandon);
      }
    });
  }

  CompletableFuture<PromptTokens> result() {
    return result;
  }

  void start() {
    if (result.isDone()) {
      return;
    }
    exchange = OneShotExchange.start(transport, engine.url(), httpRequest, options, timeoutNanos, loop, this);
  }

  @Override
  public void onAnswer(int status, String body) {
    if (status != 200) {
      String message = dialect.errorMessage(body);
      fail("engine " + engine.iid() + " answered its tokenize route with HTTP " + status
          + (message.isEmpty() ? "" : ": " + message), false);
      return;
    }
    long count;
    int[] ids = null;
    try {
      count = dialect.readTokenCount(body);
      if (wantIds) {
        ids = dialect.readTokenIds(body);
        if (ids != null && ids.length != count) {
          throw new IllegalArgumentException("it lists " + ids.length + " token ids for a count of " + count);
        }
      }
    } catch (IllegalArgumentException e) {
      fail("engine " + engine.iid() + " sent an unreadable count: " + e.getMessage(), false);
      return;
    }
    result.complete(new PromptTokens(count, ids));
  }

  @Override
  public void onFailure(TransportFailure failure) {
    fail("engine " + engine.iid() + " could not be asked for a count: " + failure.getMessage(), false);
  }

  @Override
  public void onTimeout() {
    fail("engine " + engine.iid() + " did not count the prompt within " + Durations.describe(timeoutNanos)
        + " (engine.tokenize_timeout_s)", true);
  }

  private void abandon() {
    if (exchange != null) {
      exchange.abandon();
    }
  }

  private void fail(String message, boolean timedOut) {
    result.completeExceptionally(new PromptCountFailure(message, timedOut));
  }
}
