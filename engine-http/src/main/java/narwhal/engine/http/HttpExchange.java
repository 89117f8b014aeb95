package narwhal.engine.http;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import narwhal.time.Scheduler;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TransportFailure;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request/response exchange with an engine.
 *
 * <p>Two sides, each confined to one thread. The connection side runs on the connection's event
 * loop: it acquires a connection, writes the request, frames the response and decides whether the
 * connection goes back to the pool. The caller side runs on the caller's {@link Scheduler}: it
 * invokes the {@link ExchangeHandler} and owns {@link #cancel}, {@link #pause} and {@link #resume}.
 * When the caller's scheduler is the connection's own loop ({@code direct}) the sides share a
 * thread and callbacks run inline; otherwise each callback is a task on the caller's scheduler,
 * submitted in order. Each side keeps its own "ended" flag, so a late task from the other side is
 * dropped instead of reaching the handler after the end.
 *
 * <p>Why one class of this size: it is one state machine ({@code Phase}) whose every transition
 * also decides the connection's fate (back to the pool, or closed) and whether the handler hears
 * of it; split in two, each half would have to read the other's phase and flags. What stands on
 * its own already does: the request head ({@link EngineRequestHead}), SSE framing
 * ({@link SseEventParser}), the body bound ({@link BoundedBody}), the failures
 * ({@link TransportFailures}).
 */
final class HttpExchange implements Exchange {

  private static final Logger log = LoggerFactory.getLogger(HttpExchange.class);
  private static final String EVENT_STREAM = "text/event-stream";

  /** Connection-side progress. */
  private enum Phase {
    NEW,
    CONNECTING,
    AWAITING_HEAD,
    /** A 1xx interim response is being skipped; the real head follows. */
    SKIPPING_INTERIM,
    STREAMING_EVENTS,
    AGGREGATING_BODY,
    DONE
  }

  private final ConnectionPool pool;
  private final EngineAddress engine;
  private final EngineRequestHead request;
  private final int connectTimeoutMillis;
  private final int maxBodyBytes;
  private final EventLoop connectionLoop;
  private final Scheduler callerLoop;
  private final boolean direct;
  private final ExchangeHandler handler;

  // Caller side.
  private boolean finished;

  // Connection side.
  private Phase phase = Phase.NEW;
  private Channel channel;
  private ConnectionHandler connection;
  /** The connection being acquired while {@code CONNECTING}; cancelled if the exchange is. */
  private @Nullable Future<Channel> acquiring;
  private boolean readPaused;
  private boolean requestWritten;
  private boolean keepAlive;
  private SseEventParser events;
  /** The chunk being parsed completed at least one event. */
  private boolean chunkDispatchedEvent;
  private BoundedBody body;

  /** Builds the request head now: see {@link EngineRequestHead}. */
  HttpExchange(
      ConnectionPool pool,
      EngineAddress engine,
      EngineHttpRequest request,
      ExchangeOptions options,
      EventLoop connectionLoop,
      Scheduler callerLoop,
      boolean direct,
      ExchangeHandler handler) {
    this.pool = pool;
    this.engine = engine;
    this.request = EngineRequestHead.of(engine, request);
    this.connectTimeoutMillis = connectTimeoutMillis(options);
    this.maxBodyBytes = options.maxBodyBytes();
    this.connectionLoop = connectionLoop;
    this.callerLoop = callerLoop;
    this.direct = direct;
    this.handler = handler;
  }

  // ---------------------------------------------------------------- caller side

  @Override
  public void cancel() {
    if (finished) {
      return;
    }
    finished = true;
    onConnectionLoop(this::abandon);
  }

  @Override
  public void pause() {
    if (!finished) {
      onConnectionLoop(() -> setReadPaused(true));
    }
  }

  @Override
  public void resume() {
    if (!finished) {
      onConnectionLoop(() -> setReadPaused(false));
    }
  }

  /** Runs one handler callback unless the exchange already ended for the caller. */
  private void invoke(Consumer<ExchangeHandler> callback, boolean terminal) {
    if (finished) {
      return;
    }
    if (terminal) {
      finished = true;
    }
    try {
      callback.accept(handler);
    } catch (RuntimeException e) {
      log.warn("Exchange handler for {} {} threw; failing the exchange", engine, request.target(), e);
      if (terminal) {
        return;
      }
      finished = true;
      onConnectionLoop(this::abandon);
      TransportFailure failure =
          new TransportFailure(
              TransportFailure.Kind.PROTOCOL_ERROR,
              "handler rejected the response from " + engine + ": " + e,
              "sent a response the router could not process",
              e);
      try {
        handler.onFailure(failure);
      } catch (RuntimeException again) {
        log.warn("Exchange handler for {} {} threw from onFailure", engine, request.target(), again);
      }
    }
  }

  private void onConnectionLoop(Runnable task) {
    if (connectionLoop.inEventLoop()) {
      task.run();
      return;
    }
    try {
      connectionLoop.execute(task);
    } catch (RejectedExecutionException e) {
      // The loop is shutting down; it closes its connections on the way out.
    }
  }

  // ------------------------------------------------------------ connection side

  /** Submits the start to the connection's loop: nothing reaches the handler before open returns. */
  void start() {
    try {
      connectionLoop.execute(this::acquireConnection);
    } catch (RejectedExecutionException e) {
      deliverFailure(TransportFailures.connectFailure(engine.toString(), e));
    }
  }

  private void acquireConnection() {
    if (phase != Phase.NEW) {
      return; // cancelled before it started
    }
    phase = Phase.CONNECTING;
    Future<Channel> acquired = pool.acquire(connectionLoop, engine, connectTimeoutMillis);
    acquiring = acquired;
    acquired.addListener(f -> onAcquired(acquired));
  }

  private void onAcquired(Future<Channel> acquired) {
    if (!acquired.isSuccess()) {
      if (phase != Phase.DONE) {
        phase = Phase.DONE;
        deliverFailure(TransportFailures.connectFailure(engine.toString(), acquired.cause()));
      }
      return;
    }
    Channel acquiredChannel = acquired.getNow();
    if (phase == Phase.DONE) {
      // Cancelled while connecting: nothing was sent, so the connection is as good as new.
      pool.release(acquiredChannel, engine);
      return;
    }
    channel = acquiredChannel;
    connection = channel.pipeline().get(ConnectionHandler.class);
    connection.bind(this);
    channel.config().setAutoRead(!readPaused);
    phase = Phase.AWAITING_HEAD;
    channel
        .writeAndFlush(request.toNettyRequest())
        .addListener(
            written -> {
              if (written.isSuccess()) {
                requestWritten = true;
              } else if (phase != Phase.DONE) {
                fail(
                    new TransportFailure(
                        TransportFailure.Kind.CONNECTION_CLOSED,
                        "sending the request to " + engine + " failed: " + written.cause(),
                        written.cause()));
              }
            });
  }

  private void setReadPaused(boolean paused) {
    if (phase == Phase.DONE) {
      return;
    }
    readPaused = paused;
    if (channel != null) {
      channel.config().setAutoRead(!paused);
    }
  }

  /** A decoded response part; this method owns {@code msg} and releases it. */
  void onResponsePart(Object msg) {
    try {
      if (phase == Phase.DONE) {
        return;
      }
      if (msg instanceof HttpObject part && part.decoderResult().isFailure()) {
        Throwable cause = part.decoderResult().cause();
        fail(
            cause instanceof PrematureChannelClosureException
                ? TransportFailures.connectionClosed(engine.toString(), cause)
                : TransportFailures.malformed(engine.toString(), cause));
        return;
      }
      if (msg instanceof HttpResponse head) {
        onHead(head);
      }
      if (msg instanceof HttpContent content && phase != Phase.DONE) {
        onContent(content);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void onHead(HttpResponse head) {
    if (phase != Phase.AWAITING_HEAD) {
      fail(TransportFailures.malformed(engine.toString(), new IllegalStateException("unexpected response head")));
      return;
    }
    HttpResponseStatus status = head.status();
    if (status.codeClass() == HttpStatusClass.INFORMATIONAL
        && status.code() != HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
      phase = Phase.SKIPPING_INTERIM;
      return;
    }
    String contentType = head.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
    keepAlive = HttpUtil.isKeepAlive(head);
    if (isEventStream(contentType)) {
      events = new SseEventParser(maxBodyBytes, this::deliverEvent);
      phase = Phase.STREAMING_EVENTS;
    } else {
      body = new BoundedBody(maxBodyBytes);
      phase = Phase.AGGREGATING_BODY;
    }
    int code = status.code();
    deliver(h -> h.onHead(code, contentType), false);
  }

  /** The connect timeout the pool takes, in whole milliseconds: at least 1, at most an int's range. */
  static int connectTimeoutMillis(ExchangeOptions options) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()));
  }

  private static boolean isEventStream(String contentType) {
    int semicolon = contentType.indexOf(';');
    String mime = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
    return mime.equalsIgnoreCase(EVENT_STREAM);
  }

  private void onContent(HttpContent content) {
    boolean last = content instanceof LastHttpContent;
    switch (phase) {
      case SKIPPING_INTERIM -> {
        if (last) {
          phase = Phase.AWAITING_HEAD;
        }
        return;
      }
      case STREAMING_EVENTS -> {
        chunkDispatchedEvent = false;
        try {
          events.feed(content.content());
        } catch (SseEventParser.EventTooLargeException e) {
          fail(TransportFailures.tooLarge(engine.toString(), "an SSE event", maxBodyBytes));
          return;
        }
        // Bytes that completed no event (a keep-alive comment, half an event) still show the
        // engine is sending; the caller's silence bound needs to know. Events signal themselves.
        if (!chunkDispatchedEvent && content.content().isReadable() && phase != Phase.DONE) {
          deliver(ExchangeHandler::onChunkWithoutEvent, false);
        }
      }
      case AGGREGATING_BODY -> {
        if (!body.append(content.content())) {
          fail(TransportFailures.tooLarge(engine.toString(), "the response body", maxBodyBytes));
          return;
        }
      }
      case DONE -> {
        return; // the handler cancelled while events were being dispatched
      }
      default -> {
        fail(TransportFailures.malformed(engine.toString(), new IllegalStateException("content before a response head")));
        return;
      }
    }
    if (last && phase != Phase.DONE) {
      complete();
    }
  }

  private void complete() {
    Channel used = channel;
    // Reusable only if nothing of this exchange can still be in flight in either direction.
    boolean reusable = keepAlive && requestWritten;
    String text = body != null ? body.utf8() : null;
    endConnectionSide();
    if (reusable) {
      used.config().setAutoRead(true);
      pool.release(used, engine);
    } else {
      used.close();
    }
    if (text != null) {
      deliver(h -> h.onBody(text), false);
    }
    deliver(ExchangeHandler::onEnd, true);
  }

  /** The connection went inactive while this exchange was bound to it. */
  void onConnectionClosed() {
    fail(TransportFailures.connectionClosed(engine.toString(), null));
  }

  /** The connection's pipeline reported an error while this exchange was bound to it. */
  void onConnectionError(Throwable cause) {
    fail(TransportFailures.channelError(engine.toString(), cause));
  }

  private void fail(TransportFailure failure) {
    if (phase == Phase.DONE) {
      return;
    }
    Channel used = channel;
    endConnectionSide();
    if (used != null) {
      used.close();
    }
    deliverFailure(failure);
  }

  /** Cancel (or a throwing handler): close the connection so the engine sees the request go away. */
  private void abandon() {
    if (phase == Phase.DONE) {
      return;
    }
    if (phase == Phase.CONNECTING && acquiring != null) {
      acquiring.cancel(false); // a pending connect is closed now, not at its timeout
    }
    Channel used = channel;
    endConnectionSide();
    if (used != null) {
      used.close();
    }
  }

  private void endConnectionSide() {
    phase = Phase.DONE;
    if (connection != null) {
      connection.unbind(this);
    }
    events = null;
    body = null;
  }

  private void deliverEvent(String data) {
    chunkDispatchedEvent = true;
    if (phase != Phase.DONE) {
      deliver(h -> h.onEvent(data), false);
    }
  }

  private void deliverFailure(TransportFailure failure) {
    deliver(h -> h.onFailure(failure), true);
  }

  private void deliver(Consumer<ExchangeHandler> callback, boolean terminal) {
    if (direct) {
      invoke(callback, terminal);
      return;
    }
    try {
      callerLoop.execute(() -> invoke(callback, terminal));
    } catch (RejectedExecutionException e) {
      log.warn("Scheduler of an exchange with {} rejected a callback; abandoning the exchange", engine, e);
      abandon();
    }
  }
}
