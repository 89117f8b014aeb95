package narwhal.engine.http;

import narwhal.netty.EventLoopScheduler;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import narwhal.time.Scheduler;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.ExchangeOptions;

/**
 * {@link EngineTransport} over Netty: non-blocking HTTP/1.1 with keep-alive pooling.
 *
 * <p><b>Threading.</b> When the {@code loop} given to {@link #open} is an {@link
 * EventLoopScheduler}, the engine connection is opened on (and pooled for) that very event loop and
 * every callback runs inline on it. For any other scheduler the connection lives on {@code
 * group.next()} and each callback is submitted to the scheduler with {@link Scheduler#execute}, in
 * order (that scheduler's {@code execute} must then accept calls from other threads).
 *
 * <p><b>Requests.</b> HTTP/1.1 with the request's headers plus {@code Accept: application/json,
 * text/event-stream}, {@code Content-Type: application/json} when there is a body (unless the
 * request sets one), and transport-owned {@code Host}, {@code Content-Length} and {@code
 * Connection}. The target is the base URI's path followed by the request path.
 *
 * <p><b>Responses.</b> {@code onHead} when the head arrives (content type {@code ""} when absent).
 * A {@code text/event-stream} body is parsed incrementally by {@link SseEventParser} into {@code
 * onEvent} calls; any other body is collected up to {@link ExchangeOptions#maxBodyBytes()} and
 * passed to one {@code onBody}. Then {@code onEnd}. Interim 1xx responses are skipped.
 *
 * <p><b>TLS.</b> An {@code https://} engine is reached over TLS as the {@link EngineTls} given at
 * construction says (the JVM's trust store and host name checks by default); its connections are
 * pooled as plain ones are. A handshake is part of the connect: it must finish within the connect
 * timeout, and a certificate the router does not accept fails the exchange with {@code
 * CONNECT_FAILED}, the problem named ({@link narwhal.spi.TlsProblem}).
 *
 * <p><b>Failures.</b> Refused, unreachable or unresolvable: {@code CONNECT_FAILED}; connect slower
 * than {@link ExchangeOptions#connectTimeout()}: {@code CONNECT_TIMEOUT}; connection lost before the
 * response completed: {@code CONNECTION_CLOSED}; body or one SSE event over the limit: {@code
 * BODY_TOO_LARGE}; invalid HTTP: {@code PROTOCOL_ERROR}. A handler callback that throws is logged
 * at warn, its connection closed and the exchange failed with {@code PROTOCOL_ERROR} (the usual
 * cause is a response the dialect cannot understand). Every failure closes its connection.
 *
 * <p><b>Pooling.</b> A connection goes back to the pool only after a response completed cleanly on
 * a keep-alive connection; cancelled and failed exchanges close theirs. At most {@value
 * #DEFAULT_MAX_IDLE_PER_ENGINE} idle connections per event loop and engine are kept, each for about
 * 60 s (a sweep closes those idle for longer).
 *
 * <p>The event loop group is not owned: {@link #close()} closes pooled connections (and stops the
 * host-name lookup threads), not the group. Exchanges opened after {@code close()} fail with {@code
 * CONNECT_FAILED}.
 */
public final class NettyEngineTransport implements EngineTransport {

  /**
   * Idle connections kept per event loop and engine. Generous on purpose: a router relaying N
   * concurrent streams to an engine cycles about N connections to it, and any it cannot keep idle
   * between requests it closes and opens again (a connect, a close and several socket calls per
   * request, seen as such in profiles at 1,024 streams with a bound of 64). An idle connection
   * costs an fd and a few kilobytes.
   */
  public static final int DEFAULT_MAX_IDLE_PER_ENGINE = 1024;

  /** How long a pooled connection may stay unused before it is closed. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  private static final int LOOKUP_THREADS = 4;

  private final EventLoopGroup group;
  private final ThreadPoolExecutor lookups;
  private final OffLoopResolverGroup resolvers;
  private final ConnectionPool pool;

  /** A transport on {@code group} with NIO sockets. */
  public NettyEngineTransport(EventLoopGroup group) {
    this(group, NioSocketChannel.class);
  }

  /** A transport on {@code group} with NIO sockets, speaking TLS to https engines as {@code tls} says. */
  public NettyEngineTransport(EventLoopGroup group, EngineTls tls) {
    this(group, NioSocketChannel.class, tls);
  }

  /**
   * @param group the loops connections live on when the caller's scheduler is not an event loop;
   *     not owned
   * @param channelClass the socket channel type; it must suit the group's loops and the loops of
   *     any {@link EventLoopScheduler} passed to {@link #open} (NIO loops: {@code
   *     NioSocketChannel})
   */
  public NettyEngineTransport(EventLoopGroup group, Class<? extends Channel> channelClass) {
    this(group, channelClass, EngineTls.systemDefaults());
  }

  /**
   * As {@link #NettyEngineTransport(EventLoopGroup, Class)}, speaking TLS to {@code https://}
   * engines as {@code tls} says (trust, client certificate, host name check).
   */
  public NettyEngineTransport(EventLoopGroup group, Class<? extends Channel> channelClass, EngineTls tls) {
    this(group, channelClass, DEFAULT_MAX_IDLE_PER_ENGINE, DEFAULT_IDLE_TIMEOUT, tls);
  }

  /** With explicit pool limits; tests use short idle timeouts. */
  NettyEngineTransport(
      EventLoopGroup group,
      Class<? extends Channel> channelClass,
      int maxIdlePerEngine,
      Duration idleTimeout) {
    this(group, channelClass, maxIdlePerEngine, idleTimeout, EngineTls.systemDefaults());
  }

  private NettyEngineTransport(
      EventLoopGroup group,
      Class<? extends Channel> channelClass,
      int maxIdlePerEngine,
      Duration idleTimeout,
      EngineTls tls) {
    Objects.requireNonNull(tls, "tls");
    this.group = Objects.requireNonNull(group, "group");
    this.lookups =
        new ThreadPoolExecutor(
            LOOKUP_THREADS,
            LOOKUP_THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            new DefaultThreadFactory("narwhal-engine-dns", true));
    this.lookups.allowCoreThreadTimeOut(true);
    this.resolvers = new OffLoopResolverGroup(lookups);
    Bootstrap template =
        new Bootstrap()
            .channel(channelClass)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .resolver(resolvers)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ConnectionPool.Target target = ch.attr(ConnectionPool.TARGET).get();
                    if (target != null && target.engine().tls()) {
                      ch.pipeline().addLast("tls",
                          tls.newHandler(ch.alloc(), target.engine(), target.connectTimeoutMillis()));
                    }
                    ch.pipeline().addLast("http", new HttpClientCodec());
                    ch.pipeline().addLast("exchange", new ConnectionHandler());
                  }
                });
    this.pool = new ConnectionPool(template, maxIdlePerEngine, idleTimeout);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException when the base URI is not {@code http(s)://host[:port][/path]} or
   *     the request's method or headers are not valid HTTP
   */
  @Override
  public Exchange open(
      URI engineBase,
      EngineHttpRequest request,
      ExchangeOptions options,
      Scheduler loop,
      ExchangeHandler handler) {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(handler, "handler");
    EngineAddress engine = EngineAddress.of(engineBase);
    boolean direct = loop instanceof EventLoopScheduler;
    EventLoop connectionLoop =
        direct ? ((EventLoopScheduler) loop).eventLoop() : group.next();
    HttpExchange exchange =
        new HttpExchange(pool, engine, request, options, connectionLoop, loop, direct, handler);
    exchange.start();
    return exchange;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Only for a caller running on an event loop ({@link EventLoopScheduler}), as the router's
   * requests do: exchanges opened from elsewhere take a loop per exchange, so a connection readied
   * on one could not be counted on. A base URI {@link #open} would refuse is left for it to report.
   */
  @Override
  public void prepare(URI engineBase, ExchangeOptions options, Scheduler loop) {
    if (!(loop instanceof EventLoopScheduler scheduler) || !scheduler.inLoop()) {
      return;
    }
    EngineAddress engine;
    try {
      engine = EngineAddress.of(engineBase);
    } catch (IllegalArgumentException e) {
      return;
    }
    pool.prepare(scheduler.eventLoop(), engine, HttpExchange.connectTimeoutMillis(options));
  }

  @Override
  public int openConnections() {
    return pool.openConnections();
  }

  @Override
  public void close() {
    pool.close();
    resolvers.close();
    lookups.shutdown();
  }
}
