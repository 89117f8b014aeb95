package narwhal.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategy;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The socket I/O the router's event loops use: Linux epoll through Netty's native transport where
 * it loads, else the JDK's NIO.
 *
 * <p>Why epoll by default: every relayed token is one read from the engine and one write to the
 * client, so the per-event cost of the loop is paid per token. The native transport drives epoll
 * directly and reads and writes through native memory, where NIO goes through the JDK selector's
 * key sets and buffer views; on the relay benchmark that is most of the loop's own time.
 *
 * <p>{@code NARWHAL_IO} (or the system property {@code narwhal.io}) overrides the choice: {@code
 * epoll} (fail at start-up if it cannot load), {@code nio}, or {@code auto} (the default); and
 * {@code epoll-busy}, epoll whose loops spin instead of sleeping when idle: every loop burns a
 * whole core, and in exchange no event waits for a sleeping CPU to wake. It is a measurement tool
 * for latency (how much of a one-stream TTFT is the idle CPU's wake-up, BENCHMARKS.md), not a
 * production setting.
 *
 * @param name "epoll", "epoll-busy" or "nio", for the start-up log
 * @param handlers the I/O of the loops that carry connections
 * @param acceptorHandlers the I/O of the loop that accepts them: never spinning, since accepting
 *     is rare and a spinning acceptor would take a core from the connections' loops
 */
public record NettyIo(
    String name,
    IoHandlerFactory handlers,
    IoHandlerFactory acceptorHandlers,
    Class<? extends SocketChannel> socketChannel,
    Class<? extends ServerSocketChannel> serverChannel) {

  /** The I/O NARWHAL_IO (or {@code -Dnarwhal.io}) asks for, {@code auto} when neither is set. */
  public static NettyIo configured() {
    String property = System.getProperty("narwhal.io");
    return select(property != null ? property : System.getenv("NARWHAL_IO"));
  }

  /**
   * @param preference {@code auto}, {@code epoll} or {@code nio} (any case); null or blank is auto
   * @throws IllegalArgumentException for another value, or {@code epoll} where it cannot load
   */
  public static NettyIo select(@Nullable String preference) {
    String wanted = preference == null || preference.isBlank() ? "auto" : preference.trim().toLowerCase(Locale.ROOT);
    switch (wanted) {
      case "nio":
        return nio();
      case "epoll":
        if (!Epoll.isAvailable()) {
          throw new IllegalArgumentException(
              "NARWHAL_IO=epoll but the native epoll transport cannot load here: " + Epoll.unavailabilityCause());
        }
        return epoll();
      case "epoll-busy":
        if (!Epoll.isAvailable()) {
          throw new IllegalArgumentException(
              "NARWHAL_IO=epoll-busy but the native epoll transport cannot load here: " + Epoll.unavailabilityCause());
        }
        return new NettyIo("epoll-busy", EpollIoHandler.newFactory(0, () -> (selectNow, hasTasks) -> SelectStrategy.BUSY_WAIT),
            EpollIoHandler.newFactory(), EpollSocketChannel.class, EpollServerSocketChannel.class);
      case "auto":
        return Epoll.isAvailable() ? epoll() : nio();
      default:
        throw new IllegalArgumentException(
            "NARWHAL_IO must be auto, epoll, epoll-busy or nio, got '" + preference + "'");
    }
  }

  static NettyIo nio() {
    return new NettyIo("nio", NioIoHandler.newFactory(), NioIoHandler.newFactory(), NioSocketChannel.class,
        NioServerSocketChannel.class);
  }

  private static NettyIo epoll() {
    return new NettyIo("epoll", EpollIoHandler.newFactory(), EpollIoHandler.newFactory(), EpollSocketChannel.class,
        EpollServerSocketChannel.class);
  }

  /**
   * A group of {@code threads} loops ({@code 0}: one per available processor). One loop per core:
   * a loop never blocks, so more loops than cores only add context switches and split the
   * per-pass batching (one flush for every token a pass relays) into smaller batches.
   */
  public EventLoopGroup newGroup(int threads) {
    int n = threads > 0 ? threads : Math.max(1, Runtime.getRuntime().availableProcessors());
    return new MultiThreadIoEventLoopGroup(n, handlers);
  }

  /** The one loop that accepts connections (never a spinning one). */
  public EventLoopGroup newAcceptorGroup() {
    return new MultiThreadIoEventLoopGroup(1, acceptorHandlers);
  }
}
