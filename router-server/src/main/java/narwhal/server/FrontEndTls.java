package narwhal.server;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import narwhal.config.ServingTlsConfig;
import narwhal.netty.EventLoopScheduler;
import narwhal.netty.tls.ServerTls;
import org.jspecify.annotations.Nullable;

/**
 * The front-ends' TLS as a router owns it: the {@link ServerTls} both front-ends serve, and the
 * thread its certificate checks run on. That thread is a Netty {@link DefaultEventLoop}, which does
 * no socket I/O: reading certificate files there never holds up a connection.
 */
final class FrontEndTls implements AutoCloseable {

  private final EventLoop checks;
  private final ServerTls tls;

  private FrontEndTls(EventLoop checks, ServerTls tls) {
    this.checks = checks;
    this.tls = tls;
  }

  /** TLS per {@code config}, or null for plain TCP. */
  static @Nullable FrontEndTls start(@Nullable ServingTlsConfig config) {
    if (config == null) {
      return null;
    }
    EventLoop checks = new DefaultEventLoop(new DefaultThreadFactory("narwhal-tls-reload", true));
    try {
      return new FrontEndTls(checks, ServerTls.start(config, EventLoopScheduler.of(checks)));
    } catch (RuntimeException e) {
      checks.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw e;
    }
  }

  ServerTls serverTls() {
    return tls;
  }

  @Override
  public void close() {
    tls.close();
    checks.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
