package narwhal.jmh;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import narwhal.engine.http.SseEventParser;
import org.jspecify.annotations.Nullable;

/**
 * The benchmark's client: one keep-alive HTTP/1.1 connection to the router, on the caller's event
 * loop group, streaming one request at a time and counting the SSE events of each response up to
 * {@code data: [DONE]}.
 *
 * <p>It counts with the router's own {@link SseEventParser}; a parser that merged or dropped
 * events would show up as a wrong count, which the benchmark refuses.
 */
final class SseStreamClient implements AutoCloseable {

  /** What one streamed response carried. */
  record Stream(int dataEvents, boolean done) {}

  private final Channel channel;
  private final Handler handler;
  private final String host;

  private SseStreamClient(Channel channel, Handler handler, String host) {
    this.channel = channel;
    this.handler = handler;
    this.host = host;
  }

  static SseStreamClient connect(EventLoopGroup group, String host, int port) throws InterruptedException {
    Handler handler = new Handler();
    Channel channel = new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new HttpClientCodec(), handler);
          }
        })
        .connect(host, port).sync().channel();
    return new SseStreamClient(channel, handler, host + ":" + port);
  }

  /**
   * Posts {@code json} (from {@link #body}) to {@code path} and blocks until the whole response
   * has arrived.
   *
   * @throws IllegalStateException on a status other than 200, a closed connection, or no response
   *     within {@code timeoutSeconds}: a benchmark that relays nothing must not report a time
   */
  Stream post(String path, ByteBuf json, long timeoutSeconds) throws InterruptedException {
    FullHttpRequest request =
        new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, path, json.duplicate());
    request.headers()
        .set(HttpHeaderNames.HOST, host)
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
        .set(HttpHeaderNames.ACCEPT, "text/event-stream")
        .setInt(HttpHeaderNames.CONTENT_LENGTH, json.readableBytes());
    CompletableFuture<Stream> response = new CompletableFuture<>();
    // Handed over before the write, so the loop never sees response bytes without a taker.
    handler.expect(response);
    channel.writeAndFlush(request).addListener(f -> {
      if (!f.isSuccess()) {
        response.completeExceptionally(f.cause());
      }
    });
    try {
      return response.get(timeoutSeconds, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(path + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(path + ": no complete response within " + timeoutSeconds + " s");
    }
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /** Confined to the connection's event loop, except {@link #expect}, which publishes through a volatile. */
  private static final class Handler extends SimpleChannelInboundHandler<HttpObject> {
    private volatile @Nullable CompletableFuture<Stream> pending;
    /** One parser for the connection: every response ends on an event boundary. */
    private final SseEventParser parser = new SseEventParser(1 << 20, this::onEvent);
    private @Nullable HttpResponseStatus status;
    private final StringBuilder errorBody = new StringBuilder();
    private int events;
    private boolean done;
    private boolean eventAfterDone;

    void expect(CompletableFuture<Stream> response) {
      pending = response;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) throws Exception {
      if (msg instanceof HttpResponse head) {
        status = head.status();
        events = 0;
        done = false;
        eventAfterDone = false;
        errorBody.setLength(0);
      }
      if (msg instanceof HttpContent content) {
        if (HttpResponseStatus.OK.equals(status)) {
          parser.feed(content.content());
        } else {
          errorBody.append(content.content().toString(StandardCharsets.UTF_8));
        }
        if (msg instanceof LastHttpContent) {
          finish();
        }
      }
    }

    private void onEvent(String data) {
      if (done) {
        eventAfterDone = true;
      } else if (data.equals("[DONE]")) {
        done = true;
      } else {
        events++;
      }
    }

    private void finish() {
      CompletableFuture<Stream> response = pending;
      pending = null;
      if (response == null) {
        return;
      }
      if (!HttpResponseStatus.OK.equals(status)) {
        response.completeExceptionally(new IllegalStateException("HTTP " + status + ": " + errorBody));
      } else if (eventAfterDone) {
        response.completeExceptionally(new IllegalStateException("events after data: [DONE]"));
      } else {
        response.complete(new Stream(events, done));
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      fail(new IllegalStateException("the router closed the connection"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail(cause);
      ctx.close();
    }

    private void fail(Throwable cause) {
      CompletableFuture<Stream> response = pending;
      pending = null;
      if (response != null) {
        response.completeExceptionally(cause);
      }
    }
  }

  /**
   * The UTF-8 bytes of {@code json} in a buffer every request can send a duplicate of: it ignores
   * the release the encoder does after writing it.
   */
  static ByteBuf body(String json) {
    return Unpooled.unreleasableBuffer(Unpooled.copiedBuffer(json, StandardCharsets.UTF_8).asReadOnly());
  }
}
