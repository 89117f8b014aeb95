package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.junit.jupiter.api.Test;

/** The router's socket I/O: epoll where it loads, NIO when asked or as the fallback. */
class NettyIoTest {

  @Test
  void auto_isEpollWhereItLoads_elseNio() {
    NettyIo io = NettyIo.select(null);
    assertThat(io.name()).isEqualTo(Epoll.isAvailable() ? "epoll" : "nio");
    assertThat(NettyIo.select(" AUTO ").name()).isEqualTo(io.name());
  }

  @Test
  void onLinuxX86_epollLoads() {
    // The build ships the linux-x86_64 native library; on such a machine it must load, or the
    // router silently falls back to the slower NIO path.
    if (System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64")) {
      assertThat(Epoll.isAvailable()).as("epoll unavailable: %s", Epoll.unavailabilityCause()).isTrue();
      assertThat(NettyIo.select("epoll").serverChannel()).isEqualTo(EpollServerSocketChannel.class);
    } else {
      assertThat(NettyIo.select("auto").name()).isIn("epoll", "nio");
    }
  }

  @Test
  void nio_canBeForced() {
    assertThat(NettyIo.select("nio").serverChannel()).isEqualTo(NioServerSocketChannel.class);
  }

  @Test
  void unknownChoice_isRefusedWithTheValuesAllowed() {
    assertThatThrownBy(() -> NettyIo.select("io_uring"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("auto, epoll, epoll-busy or nio")
        .hasMessageContaining("io_uring");
  }

  @Test
  void epollBusy_runsTasksOnSpinningLoops() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Epoll.isAvailable(), "needs the native epoll transport");
    NettyIo io = NettyIo.select("epoll-busy");
    assertThat(io.name()).isEqualTo("epoll-busy");
    assertThat(io.serverChannel()).isEqualTo(EpollServerSocketChannel.class);
    EventLoopGroup group = io.newGroup(1);
    try {
      assertThat(group.submit(() -> "ran").get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("ran");
    } finally {
      group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void newGroup_hasOneLoopPerProcessorByDefault() {
    EventLoopGroup group = NettyIo.select("nio").newGroup(0);
    try {
      assertThat(((MultiThreadIoEventLoopGroup) group).executorCount())
          .isEqualTo(Runtime.getRuntime().availableProcessors());
    } finally {
      group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
  }
}
