package narwhal.core.legs;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineSpec;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TransportFailure;
import narwhal.time.Durations;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import org.jspecify.annotations.Nullable;

/**
 * One exact prompt count: the dialect's tokenize request, bounded by {@code
 * engine.tokenize_timeout_s}, its answer read by the dialect. The future completes on the loop
 * with the count or with a {@link PromptCountFailure}; cancelling it abandons the exchange.
 * Confined to its loop.
 */
final class PromptCountLeg implements ExchangeHandler {

  private final EngineTransport transport;
  private final EngineDialect dialect;
  private final EngineSpec engine;
  private final EngineHttpRequest httpRequest;
  private final long timeoutNanos;
  private final ExchangeOptions options;
  private final Scheduler loop;
  private final CompletableFuture<Long> result = new CompletableFuture<>();

  private @Nullable Exchange exchange;
  private Timer timeout = Timer.NONE;
  private int status;
  private String body = "";
  private boolean finished;

  PromptCountLeg(EngineTransport transport, EngineDialect dialect, EngineSpec engine, EngineHttpRequest httpRequest,
      long timeoutNanos, ExchangeOptions options, Scheduler loop) {
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

  CompletableFuture<Long> result() {
    return result;
  }

  void start() {
    if (result.isDone()) {
      return;
    }
    timeout = loop.schedule(this::onTimeout, timeoutNanos, TimeUnit.NANOSECONDS);
    exchange = transport.open(engine.url(), httpRequest, options, loop, this);
  }

  @Override
  public void onHead(int status, String contentType) {
    this.status = status;
  }

  @Override
  public void onEvent(String data) {
    // A count is one JSON answer; an event stream is judged, unreadable, at the end.
  }

  @Override
  public void onBody(String body) {
    this.body = body;
  }

  @Override
  public void onEnd() {
    if (finished) {
      return;
    }
    if (status != 200) {
      String message = dialect.errorMessage(body);
      fail("engine " + engine.iid() + " answered its tokenize route with HTTP " + status
          + (message.isEmpty() ? "" : ": " + message), false);
      return;
    }
    long count;
    try {
      count = dialect.readTokenCount(body);
    } catch (IllegalArgumentException e) {
      fail("engine " + engine.iid() + " sent an unreadable count: " + e.getMessage(), false);
      return;
    }
    finish();
    result.complete(count);
  }

  @Override
  public void onFailure(TransportFailure failure) {
    if (!finished) {
      fail("engine " + engine.iid() + " could not be asked for a count: " + failure.getMessage(), false);
    }
  }

  private void onTimeout() {
    if (finished) {
      return;
    }
    if (exchange != null) {
      exchange.cancel();
    }
    fail("engine " + engine.iid() + " did not count the prompt within " + Durations.describe(timeoutNanos)
        + " (engine.tokenize_timeout_s)", true);
  }

  private void abandon() {
    if (!finished) {
      finish();
      if (exchange != null) {
        exchange.cancel();
      }
    }
  }

  private void fail(String message, boolean timedOut) {
    finish();
    result.completeExceptionally(new PromptCountFailure(message, timedOut));
  }

  private void finish() {
    finished = true;
    timeout.cancel();
  }
}
