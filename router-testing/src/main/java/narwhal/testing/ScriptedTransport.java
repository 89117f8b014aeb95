package narwhal.testing;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import narwhal.time.Scheduler;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TransportFailure;

/**
 * An {@link EngineTransport} with no sockets: every exchange is recorded and the test plays the
 * engine's part by hand ({@link Call#respond}, {@link Call#event}, {@link Call#end}, ...). With a
 * {@link ManualScheduler} this tests engine-leg timing exactly.
 */
public final class ScriptedTransport implements EngineTransport {

  private final List<Call> calls = new ArrayList<>();
  private final List<URI> prepared = new ArrayList<>();

  @Override
  public Exchange open(URI engineBase, EngineHttpRequest request, ExchangeOptions options, Scheduler loop,
      ExchangeHandler handler) {
    Call call = new Call(engineBase, request, options, handler);
    calls.add(call);
    return call;
  }

  /** Records the hint; no connection is made (there are none here). */
  @Override
  public void prepare(URI engineBase, ExchangeOptions options, Scheduler loop) {
    prepared.add(engineBase);
  }

  /** The engines a caller asked to ready a connection to ({@link #prepare}), in order. */
  public List<URI> prepared() {
    return prepared;
  }

  /** Every exchange opened so far, in order. */
  public List<Call> calls() {
    return calls;
  }

  public Call last() {
    if (calls.isEmpty()) {
      throw new AssertionError("no exchange was opened");
    }
    return calls.get(calls.size() - 1);
  }

  /** Exchanges neither finished nor cancelled. */
  @Override
  public int openConnections() {
    return (int) calls.stream().filter(c -> !c.cancelled && !c.ended).count();
  }

  @Override
  public void close() {}

  /** One recorded exchange; the test answers it. */
  public static final class Call implements Exchange {
    public final URI engine;
    public final EngineHttpRequest request;
    /** The limits the caller opened the exchange with (e.g. its connect timeout). */
    public final ExchangeOptions options;
    private final ExchangeHandler handler;
    private boolean cancelled;
    private boolean ended;
    private boolean paused;

    Call(URI engine, EngineHttpRequest request, ExchangeOptions options, ExchangeHandler handler) {
      this.engine = engine;
      this.request = request;
      this.options = options;
      this.handler = handler;
    }

    public String body() {
      return new String(request.body(), StandardCharsets.UTF_8);
    }

    public Call head(int status, String contentType) {
      if (!cancelled) {
        handler.onHead(status, contentType);
      }
      return this;
    }

    public Call sse() {
      return head(200, "text/event-stream");
    }

    public Call event(String data) {
      if (!cancelled) {
        handler.onEvent(data);
      }
      return this;
    }

    /** Stream bytes that complete no event, e.g. an SSE comment line {@code : keep-alive}. */
    public Call chunkWithoutEvent() {
      if (!cancelled && !ended) {
        handler.onChunkWithoutEvent();
      }
      return this;
    }

    /** A whole JSON response: head, body, end. */
    public Call respond(int status, String body) {
      if (!cancelled) {
        handler.onHead(status, "application/json");
        handler.onBody(body);
        end();
      }
      return this;
    }

    public Call end() {
      if (!cancelled && !ended) {
        ended = true;
        handler.onEnd();
      }
      return this;
    }

    public Call fail(TransportFailure.Kind kind) {
      if (!cancelled && !ended) {
        ended = true;
        handler.onFailure(new TransportFailure(kind, kind.name().toLowerCase()));
      }
      return this;
    }

    public boolean cancelled() {
      return cancelled;
    }

    public boolean paused() {
      return paused;
    }

    @Override
    public void cancel() {
      cancelled = true;
    }

    @Override
    public void pause() {
      paused = true;
    }

    @Override
    public void resume() {
      paused = false;
    }
  }
}
