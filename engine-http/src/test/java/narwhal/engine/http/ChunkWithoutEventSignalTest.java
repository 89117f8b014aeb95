package narwhal.engine.http;

import narwhal.netty.EventLoopScheduler;

import static java.nio.charset.StandardCharsets.UTF_8;
import static narwhal.engine.http.TestEngineServer.pieces;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.ExchangeOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Stream bytes that complete no SSE event (a keep-alive comment) reach the handler as {@code
 * onChunkWithoutEvent}: a decode leg's silence bound counts them as the engine still sending.
 */
class ChunkWithoutEventSignalTest {

  private static final String SSE = "text/event-stream; charset=utf-8";

  private static EventLoopGroup group;
  private static EventLoopScheduler loop;

  @BeforeAll
  static void startGroup() {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    loop = EventLoopScheduler.of(group.next());
  }

  @AfterAll
  static void stopGroup() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Records the chunk signal as a "chunk" line beside the other callbacks. */
  private static final class ChunkRecordingHandler extends RecordingHandler {
    ChunkRecordingHandler() {
      super(loop::inLoop);
    }

    @Override
    public void onChunkWithoutEvent() {
      calls.add(loop.inLoop() ? "chunk" : "chunk off the loop");
    }
  }

  @Test
  void keepAliveComment_betweenEvents_isSignalled_andEventsStayAsTheyWere() {
    try (TestEngineServer server = new TestEngineServer(TestEngineServer.eventStream(
            pieces("data: a\n\n", ": keep-alive\n\n", "data: b\n\n"), true));
        NettyEngineTransport transport = new NettyEngineTransport(group, NioSocketChannel.class)) {
      ChunkRecordingHandler handler = new ChunkRecordingHandler();

      transport.open(server.uri(),
          new EngineHttpRequest("POST", "/v1/completions", Map.of(), "{}".getBytes(UTF_8)),
          ExchangeOptions.defaults(), loop, handler);
      handler.awaitEnd();

      List<String> calls = List.copyOf(handler.calls);
      // However TCP splits the pieces, the comment completes no event, so at least one signal
      // lands between the two events; other callbacks are unchanged.
      assertThat(calls.stream().filter(c -> !c.equals("chunk")))
          .containsExactly("head 200 " + SSE, "event a", "event b", "end");
      assertThat(calls.subList(calls.indexOf("event a"), calls.indexOf("event b"))).contains("chunk");
      assertThat(handler.offThreadCalls()).isEmpty();
    }
  }
}
