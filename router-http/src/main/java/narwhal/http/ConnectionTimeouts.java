package narwhal.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;
import narwhal.api.RouterError;
import narwhal.time.Durations;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import org.jspecify.annotations.Nullable;

/**
 * The header-read and idle timeouts of one client connection, so that a connection that holds no
 * admission seat cannot hold a socket forever either.
 *
 * <ul>
 *   <li><b>Header timeout</b>: a request head must be complete within {@code headerTimeout} of
 *       the connection's accept, or, on a kept-alive connection, of the first byte of that head.
 *       It is a total, not reset by each byte, so a head trickled a byte at a time is cut. A head
 *       that started arriving gets 408 (then the connection closes); a new connection that sent
 *       nothing is closed silently.
 *   <li><b>Idle timeout</b>: between requests (the last response fully written, nothing of the
 *       next request received) a kept-alive connection is closed silently after {@code
 *       idleTimeout}.
 * </ul>
 *
 * <p>Neither runs while a request is being read or answered: a long stream is never cut (the
 * body upload is bounded by the request deadline instead). Netty's {@code IdleStateHandler} and
 * {@code ReadTimeoutHandler} do not fit: they restart on every read, which a trickled head defeats,
 * and they cannot tell a stream in progress from an idle connection.
 *
 * <p>The handler sits after the HTTP codec, where it sees whole heads and responses; {@link
 * #byteWatcher()} sits before the codec to see when the next head's first byte arrives. Timers run
 * on the connection's event loop through {@link Scheduler}; everything here runs on that loop.
 */
final class ConnectionTimeouts extends ChannelDuplexHandler {

  private enum Phase {
    /** Waiting for a head to complete; the header timer runs. */
    HEAD,
    /** A request is being read or answered (or pipelined ones wait); no timer runs. */
    BUSY,
    /** Between requests; the idle timer runs. */
    IDLE,
    /** Timed out; input is dropped while the connection closes. */
    CLOSED
  }

  private final Scheduler loop;
  private final long headerTimeoutNanos;
  private final long idleTimeoutNanos;
  private final ClientConnections stats;

  private Phase phase = Phase.HEAD;
  /** Whether any byte of the awaited head arrived (a 408 is owed rather than a silent close). */
  private boolean headBytesSeen;
  /** Heads decoded and final responses fully written: equal when no request is outstanding. */
  private long requests;
  private long responses;
  /** A request's body is still arriving. */
  private boolean readingBody;
  private Timer timer = Timer.NONE;
  private @Nullable ChannelHandlerContext ctx;

  /** Zero for either timeout turns it off. */
  ConnectionTimeouts(
      Scheduler loop, long headerTimeoutNanos, long idleTimeoutNanos, ClientConnections stats) {
    this.loop = loop;
    this.headerTimeoutNanos = headerTimeoutNanos;
    this.idleTimeoutNanos = idleTimeoutNanos;
    this.stats = stats;
  }

  /** The handler to place before the HTTP codec: it reports raw bytes arriving. */
  ChannelInboundHandlerAdapter byteWatcher() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf && buf.isReadable()) {
          bytesArrived();
        }
        ctx.fireChannelRead(msg);
      }
    };
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    // The first head's clock starts at accept: a connection that never sends is cut too.
    awaitHead(false);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    phase = Phase.CLOSED;
    timer.cancel();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    timer.cancel();
  }

  private void bytesArrived() {
    if (phase == Phase.IDLE) {
      // The next request's head begins: the idle wait is over, its header clock starts now.
      awaitHead(true);
    } else if (phase == Phase.HEAD) {
      headBytesSeen = true;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (phase == Phase.CLOSED) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpRequest) {
      requests++;
      readingBody = true;
      busy();
    }
    if (msg instanceof LastHttpContent) {
      readingBody = false;
      idleIfDone();
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    boolean informational = msg instanceof HttpResponse response
        && response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
    if (msg instanceof LastHttpContent && !informational) {
      // The response ends when its last byte is written (not queued): a client reading slowly is
      // still being answered, not idle.
      ChannelPromise written = promise.unvoid();
      ctx.write(msg, written);
      written.addListener(f -> {
        if (f.isSuccess()) {
          responses++;
          idleIfDone();
        }
      });
      return;
    }
    ctx.write(msg, promise);
  }

  private void awaitHead(boolean bytesSeen) {
    phase = Phase.HEAD;
    headBytesSeen = bytesSeen;
    arm(headerTimeoutNanos, this::headerExpired);
  }

  private void busy() {
    timer.cancel();
    timer = Timer.NONE;
    phase = Phase.BUSY;
  }

  private void idleIfDone() {
    if (phase == Phase.BUSY && !readingBody && responses >= requests) {
      phase = Phase.IDLE;
      arm(idleTimeoutNanos, this::idleExpired);
    }
  }

  private void arm(long timeoutNanos, Runnable expiry) {
    timer.cancel();
    timer = timeoutNanos > 0 ? loop.schedule(expiry, timeoutNanos, TimeUnit.NANOSECONDS) : Timer.NONE;
  }

  private void headerExpired() {
    if (phase != Phase.HEAD) {
      return;
    }
    phase = Phase.CLOSED;
    stats.headerTimedOut();
    ChannelHandlerContext c = ctx;
    if (c == null) {
      return;
    }
    if (!headBytesSeen) {
      c.close();
      return;
    }
    RouterError error = RouterError.of(408, "request_timeout", "header_timeout",
        "Request headers did not arrive within " + Durations.describe(headerTimeoutNanos)
            + " (serving.header_timeout_s); send the whole head at once.");
    var response = Responses.error(error, null);
    HttpUtil.setKeepAlive(response, false);
    // Written from here, past the front-end handler, which never saw this head.
    LingeringClose.after(c.writeAndFlush(response), loop);
  }

  private void idleExpired() {
    if (phase != Phase.IDLE) {
      return;
    }
    phase = Phase.CLOSED;
    stats.idleTimedOut();
    ChannelHandlerContext c = ctx;
    if (c != null) {
      c.close(); // between requests nothing is owed: HTTP lets an idle connection close silently
    }
  }
}
