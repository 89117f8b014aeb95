package narwhal.engine.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** A scriptable HTTP/1.1 engine on 127.0.0.1 that records what arrives over the wire. */
final class TestEngineServer implements AutoCloseable {

  /** One request as the server received it; header names lower-cased. */
  record Request(int connection, String method, String uri, Map<String, String> headers, String body) {}

  /** Answers one request, on the server's event loop. */
  interface Responder {
    void respond(ChannelHandlerContext ctx, Request request);
  }

  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private final Channel serverChannel;
  private final boolean tls;
  /** The server names (SNI) TLS clients asked for, one entry per handshake. */
  private final List<String> serverNames = new CopyOnWriteArrayList<>();

  TestEngineServer(Responder responder) {
    this(responder, null);
  }

  /** Serving TLS with {@code tls} when it is set: the engine of an https:// URL. */
  TestEngineServer(Responder responder, io.netty.handler.ssl.@org.jspecify.annotations.Nullable SslContext tls) {
    this.tls = tls != null;
    serverChannel =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    int id = accepted.incrementAndGet();
                    ch.closeFuture().addListener(f -> closed.incrementAndGet());
                    if (tls != null) {
                      io.netty.handler.ssl.SslHandler ssl = tls.newHandler(ch.alloc());
                      ssl.handshakeFuture().addListener(done -> {
                        if (done.isSuccess()
                            && ssl.engine().getSession() instanceof javax.net.ssl.ExtendedSSLSession session) {
                          serverNames.add(session.getRequestedServerNames().stream()
                              .map(n -> ((javax.net.ssl.SNIHostName) n).getAsciiName()).findFirst().orElse(""));
                        }
                      });
                      ch.pipeline().addLast(ssl);
                    }
                    ch.pipeline()
                        .addLast(new HttpServerCodec())
                        .addLast(new HttpObjectAggregator(1 << 20))
                        .addLast(new ChunkedWriteHandler())
                        .addLast(
                            new SimpleChannelInboundHandler<FullHttpRequest>() {
                              @Override
                              protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest msg) {
                                Map<String, String> headers = new TreeMap<>();
                                msg.headers().forEach(e -> headers.put(e.getKey().toLowerCase(), e.getValue()));
                                Request request =
                                    new Request(
                                        id,
                                        msg.method().name(),
                                        msg.uri(),
                                        headers,
                                        msg.content().toString(StandardCharsets.UTF_8));
                                requests.add(request);
                                responder.respond(ctx, request);
                              }
                            });
                  }
                })
            .bind("127.0.0.1", 0)
            .syncUninterruptibly()
            .channel();
  }

  URI uri() {
    return URI.create((tls ? "https" : "http") + "://127.0.0.1:" + port());
  }

  /** As {@link #uri()} with the host name {@code localhost}: SNI is sent for names, not IP literals. */
  URI localhostUri() {
    return URI.create((tls ? "https" : "http") + "://localhost:" + port());
  }

  List<String> serverNames() {
    return serverNames;
  }

  int port() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  List<Request> requests() {
    return requests;
  }

  int connectionsAccepted() {
    return accepted.get();
  }

  int connectionsClosed() {
    return closed.get();
  }

  @Override
  public void close() {
    serverChannel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  // ------------------------------------------------------------------ responses

  static FullHttpResponse full(HttpResponseStatus status, String contentType, String body) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, status, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
    return response;
  }

  /** A keep-alive JSON response. */
  static Responder json(String body) {
    return (ctx, request) ->
        ctx.writeAndFlush(full(HttpResponseStatus.OK, "application/json", body));
  }

  /** A JSON response with {@code Connection: close}, after which the server closes. */
  static Responder jsonThenClose(String body) {
    return (ctx, request) -> {
      FullHttpResponse response = full(HttpResponseStatus.OK, "application/json", body);
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    };
  }

  static HttpResponse eventStreamHead() {
    HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    return head;
  }

  static DefaultHttpContent chunk(ByteBufAllocator alloc, byte[] piece) {
    return new DefaultHttpContent(alloc.buffer(piece.length).writeBytes(piece));
  }

  /** The UTF-8 bytes of {@code text} cut at the given byte offsets (which may split a character). */
  static List<byte[]> cut(String text, int... offsets) {
    byte[] all = text.getBytes(StandardCharsets.UTF_8);
    List<byte[]> pieces = new ArrayList<>();
    int from = 0;
    for (int offset : offsets) {
      pieces.add(Arrays.copyOfRange(all, from, offset));
      from = offset;
    }
    pieces.add(Arrays.copyOfRange(all, from, all.length));
    return pieces;
  }

  /** Each string as one piece. */
  static List<byte[]> pieces(String... texts) {
    List<byte[]> pieces = new ArrayList<>();
    for (String text : texts) {
      pieces.add(text.getBytes(StandardCharsets.UTF_8));
    }
    return pieces;
  }

  /**
   * An event stream written as the given pieces, each its own chunk and flush; then the end of the
   * response ({@code finish}) or, abruptly, the connection's close ({@code !finish}).
   */
  static Responder eventStream(List<byte[]> pieces, boolean finish) {
    return (ctx, request) -> {
      ctx.write(eventStreamHead());
      for (byte[] piece : pieces) {
        ctx.writeAndFlush(chunk(ctx.alloc(), piece));
      }
      if (finish) {
        ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
      } else {
        ctx.flush();
        ctx.close();
      }
    };
  }

  /** An event stream that starts with {@code pieces} and then stays open and silent. */
  static Responder eventStreamThenSilence(List<byte[]> pieces) {
    return (ctx, request) -> {
      ctx.write(eventStreamHead());
      for (byte[] piece : pieces) {
        ctx.write(chunk(ctx.alloc(), piece));
      }
      ctx.flush();
    };
  }

  /**
   * {@code count} events of {@code dataBytes} each, written only as fast as the connection accepts
   * them; {@code fullyWritten} turns true once the whole response has gone to the socket.
   */
  static Responder eventFlood(int count, int dataBytes, AtomicBoolean fullyWritten) {
    return (ctx, request) -> {
      ctx.write(eventStreamHead());
      ctx.writeAndFlush(new HttpChunkedInput(new EventFlood(count, dataBytes)))
          .addListener(f -> fullyWritten.set(f.isSuccess()));
    };
  }

  /** Produces numbered events {@code data: NNNNNNN xxxx…} on demand, never more than asked. */
  private static final class EventFlood implements ChunkedInput<ByteBuf> {
    private final int count;
    private final byte[] filler;
    private int produced;

    EventFlood(int count, int dataBytes) {
      this.count = count;
      this.filler = "x".repeat(Math.max(0, dataBytes - 8)).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public boolean isEndOfInput() {
      return produced == count;
    }

    @Override
    public void close() {}

    @Deprecated
    @Override
    public ByteBuf readChunk(ChannelHandlerContext ctx) {
      return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator allocator) {
      if (produced == count) {
        return null;
      }
      ByteBuf event = allocator.buffer(filler.length + 16);
      event.writeCharSequence(String.format("data: %07d ", produced++), StandardCharsets.US_ASCII);
      event.writeBytes(filler);
      event.writeCharSequence("\n\n", StandardCharsets.US_ASCII);
      return event;
    }

    @Override
    public long length() {
      return -1;
    }

    @Override
    public long progress() {
      return produced;
    }
  }
}
