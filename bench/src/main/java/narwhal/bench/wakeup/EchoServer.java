package narwhal.bench.wakeup;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategy;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.util.ResourceLeakDetector;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * The answering side of {@code bench wakeup}, run as its own JVM pinned to the proxy's CPU: a
 * loopback TCP server that writes every byte it reads straight back, on one thread.
 *
 * <p>It waits the way the router waits, so its CPU idles the way the router's does: a Netty event
 * loop on the native epoll transport (the router's default), asleep in epoll_wait(2) between
 * messages; where epoll cannot load ({@code --io nio}, or another OS), a plain JDK selector loop
 * asleep in select(). With {@code --spin true} it never sleeps: the epoll loop busy-polls (the
 * router's NARWHAL_IO=epoll-busy) and the selector loop calls selectNow() back to back, so its CPU
 * never goes idle. The difference between the two is what the idle CPU's wake-up costs, since
 * the code that runs per message is the same.
 *
 * <p>Prints {@code listening <port> <io>} on standard output once bound, then serves until its
 * standard input ends (the harness closes it, or dies). Arguments: {@code --io auto|epoll|nio},
 * {@code --spin true|false}.
 */
public final class EchoServer {

  static final String READY = "listening";

  private EchoServer() {}

  public static void main(String[] args) throws Exception {
    // Leak detection samples buffers and records stack traces now and then: an outlier per
    // hundred messages that is the harness's, not the wake-up's.
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    Map<String, String> a = ChildArgs.parse(args);
    String io = ChildArgs.get(a, "--io").toLowerCase(Locale.ROOT);
    boolean spin = Boolean.parseBoolean(ChildArgs.get(a, "--spin"));
    boolean epoll = switch (io) {
      case "epoll" -> {
        if (!Epoll.isAvailable()) {
          throw new IllegalStateException("--echo-io epoll, but the native epoll transport cannot load here: "
              + Epoll.unavailabilityCause());
        }
        yield true;
      }
      case "nio" -> false;
      case "auto" -> Epoll.isAvailable();
      default -> throw new IllegalArgumentException("--io must be auto, epoll or nio, got '" + io + "'");
    };
    if (epoll) {
      serveEpoll(spin);
    } else {
      serveNio(spin);
    }
  }

  private static void announce(int port, String io) {
    System.out.println(READY + " " + port + " " + io);
    System.out.flush();
  }

  private static void serveEpoll(boolean spin) throws InterruptedException {
    IoHandlerFactory handlers = spin
        ? EpollIoHandler.newFactory(0, () -> (selectNow, hasTasks) -> SelectStrategy.BUSY_WAIT)
        : EpollIoHandler.newFactory();
    // One loop accepts and echoes: one thread is all that runs on the pinned CPU, as in the
    // router with one loop per core.
    EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, handlers);
    Channel server = new ServerBootstrap().group(loop).channel(EpollServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(Echo.INSTANCE);
          }
        })
        .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
    announce(((InetSocketAddress) server.localAddress()).getPort(), "epoll");
    ChildArgs.exitWhenParentGoes(0);
    server.closeFuture().sync();
  }

  /** Writes back what it reads; flushes once per read batch, as the router's relay does. */
  @Sharable
  private static final class Echo extends ChannelInboundHandlerAdapter {
    static final Echo INSTANCE = new Echo();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ctx.write(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  private static void serveNio(boolean spin) throws IOException {
    try (Selector selector = Selector.open(); ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      server.configureBlocking(false);
      server.register(selector, SelectionKey.OP_ACCEPT);
      announce(((InetSocketAddress) server.getLocalAddress()).getPort(), "nio");
      ChildArgs.exitWhenParentGoes(0);
      ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
      while (true) {
        if ((spin ? selector.selectNow() : selector.select()) == 0) {
          continue;
        }
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
          SelectionKey key = keys.next();
          keys.remove();
          if (key.isAcceptable()) {
            SocketChannel c = server.accept();
            if (c != null) {
              c.configureBlocking(false);
              c.setOption(StandardSocketOptions.TCP_NODELAY, true);
              c.register(selector, SelectionKey.OP_READ);
            }
          } else if (key.isReadable()) {
            echo(key, buf);
          }
        }
      }
    }
  }

  private static void echo(SelectionKey key, ByteBuffer buf) {
    SocketChannel c = (SocketChannel) key.channel();
    buf.clear();
    try {
      if (c.read(buf) < 0) {
        close(key);
        return;
      }
      buf.flip();
      // At most 64 KiB that the prober is waiting to read: the socket takes it without blocking for long.
      while (buf.hasRemaining()) {
        c.write(buf);
      }
    } catch (IOException e) {
      // The prober went away mid-message: drop the connection, keep serving.
      close(key);
    }
  }

  private static void close(SelectionKey key) {
    key.cancel();
    try {
      key.channel().close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
