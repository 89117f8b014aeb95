package narwhal.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Objects;
import narwhal.api.CompletionService;
import narwhal.api.FrontEndMetrics;
import narwhal.netty.EventLoopScheduler;
import org.jspecify.annotations.Nullable;

/**
 * The OpenAI-compatible HTTP/1.1 front-end over a {@link CompletionService}.
 *
 * <p>Routes: {@code POST /v1/completions} and {@code POST /v1/chat/completions} (JSON, or SSE
 * with {@code "stream": true}), {@code GET /v1/models}, {@code GET /health}, {@code GET /ready},
 * and {@code GET /metrics} when started with metrics.
 * Errors use the OpenAI envelope {@code {"error":{"message","type","param","code"}}}. A streaming
 * response is committed (status 200) only when the core reports the first token, so every
 * failure before that is a plain HTTP error with its own status; see docs/http-api.md.
 *
 * <p>Each connection serves one request at a time on its channel's event loop, which is also the
 * request's {@link narwhal.time.Scheduler}. A client that stops reading holds the engine
 * stream back through {@link narwhal.api.ClientSink#isWritable()}; a client that disconnects
 * cancels its request.
 *
 * <p>With {@link HttpFrontEndOptions#tls()} set the front-end serves HTTPS: an {@code SslHandler}
 * is first in every connection's pipeline, and the header timeout, which starts at accept, bounds
 * the TLS handshake too.
 *
 * <p>Client connections are bounded in number ({@link HttpFrontEndOptions#maxConnections()}) and
 * in time: a head must arrive within the header timeout and a kept-alive connection may idle
 * between requests only for the idle timeout (see {@link ConnectionTimeouts}). Neither holds an
 * admission seat.
 *
 * <p>The event loop groups belong to the caller and are not shut down by {@link #close()}; nor is
 * the router's off-loop pool, which decodes large request bodies ({@link CompletionService#offLoop()}).
 */
public final class HttpFrontEnd implements AutoCloseable {

  /** Below the low mark a paused client counts as writable again; above the high mark it stops. */
  private static final WriteBufferWaterMark WATER_MARK =
      new WriteBufferWaterMark(32 << 10, 64 << 10);

  private final Channel serverChannel;
  private final ChannelGroup connections;
  private final ClientConnections clientConnections;

  private HttpFrontEnd(Channel serverChannel, ChannelGroup connections, ClientConnections clientConnections) {
    this.serverChannel = serverChannel;
    this.connections = connections;
    this.clientConnections = clientConnections;
  }

  /**
   * Binds and starts serving on NIO channels; returns once the socket is bound.
   *
   * @throws RuntimeException the bind failure (e.g. the port is taken)
   */
  public static HttpFrontEnd start(
      HttpFrontEndOptions options,
      CompletionService service,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup) {
    return start(options, service, bossGroup, workerGroup, NioServerSocketChannel.class);
  }

  /**
   * As {@link #start(HttpFrontEndOptions, CompletionService, EventLoopGroup, EventLoopGroup)},
   * also serving {@code metrics} at {@code GET /metrics} in the Prometheus text format.
   */
  public static HttpFrontEnd start(
      HttpFrontEndOptions options,
      CompletionService service,
      @Nullable FrontEndMetrics metrics,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup) {
    return start(options, service, bossGroup, workerGroup, NioServerSocketChannel.class, Clock.systemUTC(),
        metrics);
  }

  /**
   * As {@link #start(HttpFrontEndOptions, CompletionService, FrontEndMetrics, EventLoopGroup,
   * EventLoopGroup)}, for groups of another transport (epoll, io_uring), whose server channel type
   * is given.
   */
  public static HttpFrontEnd start(
      HttpFrontEndOptions options,
      CompletionService service,
      @Nullable FrontEndMetrics metrics,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup,
      Class<? extends ServerChannel> serverChannelType) {
    return start(options, service, bossGroup, workerGroup, serverChannelType, Clock.systemUTC(), metrics);
  }

  /**
   * As {@link #start(HttpFrontEndOptions, CompletionService, EventLoopGroup, EventLoopGroup)},
   * for groups of another transport (epoll, io_uring), whose server channel type is given.
   */
  public static HttpFrontEnd start(
      HttpFrontEndOptions options,
      CompletionService service,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup,
      Class<? extends ServerChannel> serverChannelType) {
    return start(options, service, bossGroup, workerGroup, serverChannelType, Clock.systemUTC());
  }

  static HttpFrontEnd start(
      HttpFrontEndOptions options,
      CompletionService service,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup,
      Class<? extends ServerChannel> serverChannelType,
      Clock clock) {
    return start(options, service, bossGroup, workerGroup, serverChannelType, clock, null);
  }

  static HttpFrontEnd start(
      HttpFrontEndOptions options,
      CompletionService service,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup,
      Class<? extends ServerChannel> serverChannelType,
      Clock clock,
      @Nullable FrontEndMetrics metrics) {
    return start(options, service, bossGroup, workerGroup, serverChannelType, clock, metrics,
        BodyDecoder.openAi(service.offLoop()));
  }

  /** With the given body decoder (tests: a parser that records its thread). */
  static HttpFrontEnd start(
      HttpFrontEndOptions options,
      CompletionService service,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup,
      Class<? extends ServerChannel> serverChannelType,
      Clock clock,
      @Nullable FrontEndMetrics metrics,
      BodyDecoder decoder) {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(service, "service");
    long startedEpochSeconds = clock.instant().getEpochSecond();
    ChannelGroup connections =
        new DefaultChannelGroup("narwhal-http", GlobalEventExecutor.INSTANCE);
    ClientConnections clientConnections = new ClientConnections(options.maxConnections(), metrics);
    long headerTimeoutNanos = options.headerTimeout().toNanos();
    long idleTimeoutNanos = options.idleTimeout().toNanos();
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(bossGroup, workerGroup)
            .channel(serverChannelType)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    connections.add(ch);
                    if (options.tls() != null) {
                      // First: every byte after it, a refusal at the cap included, is TLS.
                      ch.pipeline().addLast("tls", options.tls().newHandler(ch.alloc()));
                    }
                    if (!clientConnections.admit(ch)) {
                      return; // over serving.max_client_connections: answered 503, closing
                    }
                    ConnectionTimeouts timeouts = new ConnectionTimeouts(
                        EventLoopScheduler.of(ch.eventLoop()), headerTimeoutNanos, idleTimeoutNanos,
                        clientConnections);
                    ch.pipeline()
                        .addLast("bytes-in", timeouts.byteWatcher())
                        .addLast("http", new HttpServerCodec())
                        .addLast("timeouts", timeouts)
                        .addLast(
                            "front-end",
                            new HttpConnectionHandler(
                                options, service, metrics, startedEpochSeconds, decoder));
                  }
                });
    // Netty's bind rethrows the checked BindException undeclared.
    Channel serverChannel = bootstrap.bind(options.host(), options.port()).syncUninterruptibly().channel();
    return new HttpFrontEnd(serverChannel, connections, clientConnections);
  }

  /** Client connections open now. */
  public int openConnections() {
    return clientConnections.open();
  }

  /** The connection cap, refusal and timeout counts (tests). */
  ClientConnections clientConnections() {
    return clientConnections;
  }

  /** The bound port (the ephemeral one when the options asked for port 0). */
  public int port() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  /**
   * Stops accepting and closes every open connection; requests still in flight are cancelled as
   * client disconnects. Waits for the closes unless called from an event loop.
   */
  @Override
  public void close() {
    boolean onLoop = serverChannel.eventLoop().inEventLoop();
    var closing = serverChannel.close();
    var closingConnections = connections.close();
    if (!onLoop) {
      closing.awaitUninterruptibly();
      closingConnections.awaitUninterruptibly();
    }
  }
}
