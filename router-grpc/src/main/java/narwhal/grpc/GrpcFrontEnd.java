package narwhal.grpc;

import io.grpc.Server;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import narwhal.api.CompletionService;
import narwhal.netty.EventLoopScheduler;
import narwhal.netty.tls.ServerTls;

/**
 * The gRPC front-end: {@code narwhal.v1.Router} over a {@link CompletionService}, with
 * {@code grpc.health.v1.Health} (SERVING while the router is ready) and server reflection (v1 and
 * v1alpha, for older tools), on Netty.
 *
 * <p>The server runs on the caller's event loop groups, which HTTP and the engine transport may
 * share: each call runs on the event loop it arrived on, and so do its engine connections. Handlers
 * never block, so they run on the transport thread (no executor hop). See docs/grpc-api.md.
 *
 * <p>With {@link GrpcFrontEndOptions#tls()} set it serves gRPC over TLS (ALPN {@code h2}) with the
 * settings of {@link ServerTls}, client certificates included.
 *
 * <p>The event loop groups belong to the caller and are not shut down by {@link #close()}.
 */
public final class GrpcFrontEnd implements AutoCloseable {

  private final Server server;
  private final ReadinessReporter readiness;
  private final EventLoopGroup workerGroup;
  private final OpenCalls openCalls;

  private GrpcFrontEnd(Server server, ReadinessReporter readiness, EventLoopGroup workerGroup, OpenCalls openCalls) {
    this.server = server;
    this.readiness = readiness;
    this.workerGroup = workerGroup;
    this.openCalls = openCalls;
  }

  /** Binds and starts serving on NIO channels; returns once the socket is bound. */
  public static GrpcFrontEnd start(GrpcFrontEndOptions options, CompletionService service,
      EventLoopGroup bossGroup, EventLoopGroup workerGroup) {
    return start(options, service, bossGroup, workerGroup, NioServerSocketChannel.class, Clock.systemUTC());
  }

  /**
   * As {@link #start(GrpcFrontEndOptions, CompletionService, EventLoopGroup, EventLoopGroup)}, for
   * groups of another transport, whose server channel type is given.
   *
   * @throws UncheckedIOException the bind failure (e.g. the port is taken)
   */
  public static GrpcFrontEnd start(GrpcFrontEndOptions options, CompletionService service,
      EventLoopGroup bossGroup, EventLoopGroup workerGroup, Class<? extends ServerChannel> serverChannelType,
      Clock clock) {
    return start(options, service, bossGroup, workerGroup, serverChannelType, clock,
        new RequestValidator(RequestValidator.Check.standard(), service.offLoop()));
  }

  /** With the given request validator (tests: a check that records its thread). */
  static GrpcFrontEnd start(GrpcFrontEndOptions options, CompletionService service,
      EventLoopGroup bossGroup, EventLoopGroup workerGroup, Class<? extends ServerChannel> serverChannelType,
      Clock clock, RequestValidator validator) {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(service, "service");
    HealthStatusManager health = new HealthStatusManager();
    ReadinessReporter readiness = new ReadinessReporter(service, health,
        EventLoopScheduler.of(workerGroup.next()), options.readinessPoll().toNanos());
    readiness.start();
    OpenCalls openCalls = new OpenCalls();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(options.host(), options.port()));
    // A connection that never completes its HTTP/2 handshake, or holds no call for the idle
    // timeout, is closed, as on HTTP. grpc-java has no cap on connections; see docs/running.md, "Client connections".
    if (!options.handshakeTimeout().isZero()) {
      builder.handshakeTimeout(Math.max(1, options.handshakeTimeout().toMillis()), TimeUnit.MILLISECONDS);
    }
    if (!options.idleTimeout().isZero()) {
      builder.maxConnectionIdle(Math.max(1, options.idleTimeout().toMillis()), TimeUnit.MILLISECONDS);
    }
    if (options.tls() != null) {
      // The handshake timeout above bounds the TLS handshake too: it runs before the preface.
      builder.sslContext(options.tls());
    }
    Server server = builder
        .bossEventLoopGroup(bossGroup)
        .workerEventLoopGroup(workerGroup)
        .channelType(serverChannelType)
        .directExecutor()
        .maxInboundMessageSize(options.transportMessageLimit())
        .addService(RouterService.definition(service, LoopPicker.of(workerGroup), options,
            clock.instant().getEpochSecond(), openCalls, validator))
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .addService(v1alphaReflection())
        .build();
    try {
      server.start();
    } catch (IOException e) {
      readiness.close();
      throw new UncheckedIOException("cannot serve gRPC on " + options.host() + ":" + options.port(), e);
    }
    return new GrpcFrontEnd(server, readiness, workerGroup, openCalls);
  }

  /**
   * The gRPC front-end's TLS context over {@code tls}'s settings and certificate (reloaded as the
   * HTTP front-end's is): grpc-netty's {@link GrpcSslContexts} adds ALPN {@code h2}, which gRPC
   * over TLS needs, and the same modern cipher list; the protocols stay TLS 1.3 and 1.2.
   *
   * @throws IllegalStateException the JDK cannot build it (no ALPN: impossible on Java 9+)
   */
  public static SslContext tlsContext(ServerTls tls) {
    try {
      return GrpcSslContexts.configure(tls.contextBuilder(), SslProvider.JDK).protocols(ServerTls.PROTOCOLS).build();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot build the gRPC TLS context: " + e.getMessage(), e);
    }
  }

  /** grpcurl and other tools before reflection v1 only speak v1alpha. */
  @SuppressWarnings("deprecation")
  private static io.grpc.BindableService v1alphaReflection() {
    return io.grpc.protobuf.services.ProtoReflectionService.newInstance();
  }

  /** The bound port (the ephemeral one when the options asked for port 0). */
  public int port() {
    return server.getPort();
  }

  /**
   * Stops accepting, and ends every call in flight UNAVAILABLE ("retry") after cancelling its
   * request (the core releases it as a client disconnect); health reads NOT_SERVING first. Waits
   * briefly for the calls to end unless called from an event loop.
   */
  @Override
  public void close() {
    readiness.close();
    server.shutdown();
    // Validations still queued or running are dropped by their calls, which end UNAVAILABLE.
    openCalls.shutDownAll();
    if (onWorkerLoop()) {
      server.shutdownNow(); // the calls end on this very loop, after this task
      return;
    }
    try {
      if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
        server.shutdownNow().awaitTermination(3, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private boolean onWorkerLoop() {
    for (EventExecutor executor : workerGroup) {
      if (executor.inEventLoop()) {
        return true;
      }
    }
    return false;
  }
}
