package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import narwhal.testing.ManualScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The timing logic of {@link ConnectionTimeouts} on an {@link EmbeddedChannel} with a manual
 * clock: exactly when each timeout fires, and that nothing fires while a request is outstanding.
 */
class ConnectionTimeoutsTest {

  private static final long HEADER_MS = 10_000;
  private static final long IDLE_MS = 60_000;
  private static final String GET = "GET /health HTTP/1.1\r\nHost: t\r\n\r\n";

  private final ManualScheduler clock = new ManualScheduler();
  private final ClientConnections stats = new ClientConnections(10, null);
  private final Server server = new Server();
  private final EmbeddedChannel channel = channel(HEADER_MS, IDLE_MS, server);

  private EmbeddedChannel channel(long headerMs, long idleMs, ChannelInboundHandlerAdapter app) {
    ConnectionTimeouts timeouts = new ConnectionTimeouts(clock,
        TimeUnit.MILLISECONDS.toNanos(headerMs), TimeUnit.MILLISECONDS.toNanos(idleMs), stats);
    return new EmbeddedChannel(timeouts.byteWatcher(), new HttpServerCodec(), timeouts, app);
  }

  @AfterEach
  void release() {
    channel.finishAndReleaseAll();
  }

  @Test
  void silentNewConnection_isClosedWithoutAnswer_atTheHeaderTimeoutFromAccept() {
    clock.advanceMillis(HEADER_MS - 1);
    assertThat(channel.isOpen()).isTrue();

    clock.advanceMillis(1);

    assertThat(channel.isOpen()).isFalse();
    assertThat(outbound()).isEmpty();
    assertThat(stats.headerTimeouts()).isEqualTo(1);
  }

  @Test
  void trickledHead_gets408_atTheHeaderTimeout_countedFromAccept_notFromTheLastByte() {
    String head = "POST /v1/completions HTTP/1.1\r\nHost: t\r\n";
    for (int i = 0; i < 9; i++) {
      // A byte a second: a timer restarted by each read (IdleStateHandler's way) would never fire.
      clock.advanceMillis(1_000);
      send(head.substring(i, i + 1));
      assertThat(channel.isOpen()).isTrue();
    }
    clock.advanceMillis(999);
    assertThat(channel.isOpen()).isTrue();

    clock.advanceMillis(1);

    assertThat(channel.isOpen()).isFalse();
    String answer = outbound();
    assertThat(answer).startsWith("HTTP/1.1 408 Request Timeout\r\n")
        .containsIgnoringCase("connection: close")
        .contains("\"code\":\"header_timeout\"", "serving.header_timeout_s");
    assertThat(server.heads).isZero();
  }

  @Test
  void keptAliveConnection_isClosedSilently_atTheIdleTimeoutAfterTheResponse() {
    clock.advanceMillis(HEADER_MS - 1);
    send(GET);
    clock.advanceMillis(HEADER_MS * 3); // the answer is slow: neither timeout runs meanwhile
    assertThat(channel.isOpen()).isTrue();
    server.answer();
    assertThat(outbound()).startsWith("HTTP/1.1 200 OK");

    clock.advanceMillis(IDLE_MS - 1);
    assertThat(channel.isOpen()).isTrue();
    clock.advanceMillis(1);

    assertThat(channel.isOpen()).isFalse();
    assertThat(outbound()).isEmpty();
    assertThat(stats.idleTimeouts()).isEqualTo(1);
    assertThat(stats.headerTimeouts()).isZero();
  }

  @Test
  void nextHead_endsTheIdleWait_andStartsItsOwnHeaderClockAtItsFirstByte() {
    send(GET);
    server.answer();
    outbound();
    clock.advanceMillis(IDLE_MS - 1_000);
    send("GET /health HT");

    clock.advanceMillis(HEADER_MS - 1);
    assertThat(channel.isOpen()).isTrue();
    clock.advanceMillis(1);

    assertThat(channel.isOpen()).isFalse();
    assertThat(outbound()).startsWith("HTTP/1.1 408 ");
    assertThat(stats.idleTimeouts()).isZero();
  }

  @Test
  void longStream_isNotCut_andTheIdleClockStartsWhenItsLastChunkIsWritten() {
    send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}");
    DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    channel.writeAndFlush(head);
    for (int i = 0; i < 10; i++) {
      clock.advanceMillis(IDLE_MS); // a token a minute, for ten minutes
      channel.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer("data: x\n\n", StandardCharsets.UTF_8)));
      assertThat(channel.isOpen()).isTrue();
    }
    channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    outbound();

    clock.advanceMillis(IDLE_MS - 1);
    assertThat(channel.isOpen()).isTrue();
    clock.advanceMillis(1);
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void slowBody_isLeftToTheRequestDeadline_notCutByEitherTimeout() {
    send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\n{");
    clock.advanceMillis(IDLE_MS * 2);
    assertThat(channel.isOpen()).isTrue();
    send("}  ");
    server.answer();
    outbound();

    clock.advanceMillis(IDLE_MS);
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void interim100Continue_doesNotEndTheRequest() {
    send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
    channel.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
    send("{}"); // read in full, and not answered yet

    clock.advanceMillis(IDLE_MS * 2);

    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void pipelinedRequest_keepsTheConnectionBusy_untilItsOwnResponseIsWritten() {
    send(GET + GET);
    server.answer();
    clock.advanceMillis(IDLE_MS * 2);
    assertThat(channel.isOpen()).isTrue();

    server.answer();
    clock.advanceMillis(IDLE_MS);

    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void zeroTimeouts_areOff() {
    assertThat(clock.pendingTasks()).isEqualTo(1); // the main channel's header timer
    EmbeddedChannel untimed = channel(0, 0, new ChannelInboundHandlerAdapter());
    try {
      assertThat(clock.pendingTasks()).isEqualTo(1);
      untimed.writeInbound(Unpooled.copiedBuffer("GET /", StandardCharsets.UTF_8));
      clock.advance(1, TimeUnit.DAYS);
      assertThat(untimed.isOpen()).isTrue();
    } finally {
      untimed.finishAndReleaseAll();
    }
  }

  private void send(String text) {
    channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
  }

  /** Everything written so far, as text. */
  private String outbound() {
    StringBuilder out = new StringBuilder();
    for (Object msg = channel.readOutbound(); msg != null; msg = channel.readOutbound()) {
      out.append(((ByteBuf) msg).toString(StandardCharsets.UTF_8));
      ReferenceCountUtil.release(msg);
    }
    return out.toString();
  }

  /** Counts heads, drops bodies, and answers 200 when told to. */
  private final class Server extends ChannelInboundHandlerAdapter {
    int heads;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof HttpRequest) {
        heads++;
      }
      ReferenceCountUtil.release(msg);
    }

    void answer() {
      DefaultFullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      ok.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
      channel.writeAndFlush(ok);
    }
  }
}
