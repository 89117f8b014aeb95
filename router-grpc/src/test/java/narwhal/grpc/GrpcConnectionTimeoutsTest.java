package narwhal.grpc;

import static narwhal.testing.ScriptedCompletionService.token;
import static narwhal.grpc.StreamCompletionTest.completion;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code serving.header_timeout_s} and {@code idle_timeout_s} on the gRPC port, through
 * grpc-java's handshake timeout and max connection idle: a silent socket is closed, an idle
 * connection is closed, a long stream is not.
 */
class GrpcConnectionTimeoutsTest {

  private static final Duration HANDSHAKE = Duration.ofMillis(300);
  private static final Duration IDLE = Duration.ofMillis(400);

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final ScriptedCompletionService service = new ScriptedCompletionService();
  private final GrpcFrontEnd frontEnd = GrpcFrontEnd.start(
      new GrpcFrontEndOptions("127.0.0.1", 0, 1 << 20, 1 << 20).withConnectionTimeouts(HANDSHAKE, IDLE),
      service, boss, workers);

  @AfterEach
  void stop() {
    frontEnd.close();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void socketThatNeverHandshakes_isClosed() throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", frontEnd.port()), 5_000);
      socket.setSoTimeout(10_000);
      long start = System.nanoTime();

      int read = socket.getInputStream().read(new byte[64]);
      while (read > 0) {
        read = socket.getInputStream().read(new byte[64]); // whatever the server sends, then EOF
      }

      assertThat(read).isEqualTo(-1);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(HANDSHAKE.toMillis() - 50);
    }
  }

  @Test
  void longStream_isNotCut_thenTheIdleConnectionIsClosed() throws Exception {
    int tokens = 6; // 200 ms apart: 1.2 s in all, three idle timeouts
    service.script(call -> {
      call.after(1, () -> call.sink.onStart(call.start()));
      for (int i = 0; i < tokens; i++) {
        call.after(200L * (i + 1), () -> call.deliver(token("t")));
      }
      call.after(200L * (tokens + 1), call.sink::onComplete);
    });
    ManagedChannel channel = cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", frontEnd.port()).usePlaintext().build());

    List<StreamEvent> events = new ArrayList<>();
    RouterGrpc.newBlockingStub(channel).streamCompletion(completion("hi")).forEachRemaining(events::add);

    assertThat(events).hasSize(tokens + 1);
    assertThat(events.get(tokens).hasDone()).isTrue();
    // The server's GOAWAY after the idle timeout leaves the client channel without a transport.
    narwhal.testing.Poll.until("the channel no longer ready", java.time.Duration.ofSeconds(10),
        () -> channel.getState(false) != ConnectivityState.READY);
    assertThat(channel.getState(false)).isNotEqualTo(ConnectivityState.READY);
  }
}
