package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import narwhal.sim.BootstrapRooms.Outcome;
import narwhal.sim.BootstrapRooms.State;
import org.jspecify.annotations.Nullable;

/**
 * The decode side of SGLang's KV bootstrap, simulated over HTTP: one long poll of the prefill
 * engine's {@code GET /bootstrap/rooms/{room}?wait_ms=N} (see {@link BootstrapEndpoint}), which
 * attaches this decode to the room and answers once the prefill's KV is ready or failed, or when
 * the wait is over. Runs on the decode connection's event loop; reports exactly once, unless
 * cancelled first.
 */
final class BootstrapClient {

  /** Extra time over the long poll's own wait before the client gives up on the answer. */
  private static final long GRACE_MILLIS = 2_000;

  private final EventLoop loop;
  private final Consumer<Outcome> done;
  private @Nullable Channel channel;
  private @Nullable ScheduledFuture<?> deadline;
  private boolean finished;

  private BootstrapClient(EventLoop loop, Consumer<Outcome> done) {
    this.loop = loop;
    this.done = done;
  }

  /**
   * Polls {@code host:port} for {@code room}, waiting up to {@code waitMillis}; {@code done} runs
   * on {@code loop}. Must be called on {@code loop}.
   */
  static BootstrapClient poll(
      EventLoop loop, String host, int port, long room, long waitMillis, Consumer<Outcome> done) {
    BootstrapClient client = new BootstrapClient(loop, done);
    client.start(host, port, room, waitMillis);
    return client;
  }

  /** Stops polling without reporting (the decode leg was cancelled). */
  void cancel() {
    finished = true;
    cleanUp();
  }

  private void start(String host, int port, long room, long waitMillis) {
    String where = host + ":" + port;
    deadline = loop.schedule(
        () -> report(State.FAILED, "the bootstrap server at " + where + " did not answer for room " + room
            + " within " + (waitMillis + GRACE_MILLIS) + " ms"),
        waitMillis + GRACE_MILLIS, TimeUnit.MILLISECONDS);
    Bootstrap bootstrap = new Bootstrap()
        .group(loop)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline()
                .addLast(new HttpClientCodec())
                .addLast(new HttpObjectAggregator(64 * 1024))
                .addLast(new Reader(where));
          }
        });
    ChannelFuture connect = bootstrap.connect(InetSocketAddress.createUnresolved(host, port));
    channel = connect.channel();
    connect.addListener(f -> {
      if (!f.isSuccess()) {
        report(State.FAILED, "cannot reach the bootstrap server at " + where + ": " + f.cause());
        return;
      }
      if (finished) {
        connect.channel().close();
        return;
      }
      String uri = BootstrapEndpoint.ROOMS + room + "?wait_ms=" + waitMillis;
      DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
      request.headers().set(HttpHeaderNames.HOST, where);
      request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      connect.channel().writeAndFlush(request);
    });
  }

  private void report(State state, String message) {
    if (finished) {
      return;
    }
    finished = true;
    cleanUp();
    done.accept(new Outcome(state, message));
  }

  private void cleanUp() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
    if (channel != null) {
      channel.close();
      channel = null;
    }
  }

  /** Reads the one answer. */
  private final class Reader extends SimpleChannelInboundHandler<FullHttpResponse> {
    private final String where;

    Reader(String where) {
      this.where = where;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
      String body = response.content().toString(StandardCharsets.UTF_8);
      if (response.status().code() != 200) {
        report(State.FAILED, "the bootstrap server at " + where + " answered HTTP " + response.status().code()
            + ": " + body);
        return;
      }
      try {
        JsonNode answer = SimJson.MAPPER.readTree(body);
        String state = answer.path("state").asText("");
        String message = answer.path("message").asText("");
        if ("ready".equals(state)) {
          report(State.READY, "");
        } else if ("failed".equals(state)) {
          report(State.FAILED, message);
        } else {
          report(State.FAILED, message.isEmpty() ? "the room was still " + state : message);
        }
      } catch (IOException e) {
        report(State.FAILED, "the bootstrap server at " + where + " sent an unreadable answer: " + body);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      report(State.FAILED, "the bootstrap server at " + where + " closed the connection without an answer");
      super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      report(State.FAILED, "the bootstrap connection to " + where + " failed: " + cause);
      ctx.close();
    }
  }
}
