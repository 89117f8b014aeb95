package narwhal.engine.http;

import narwhal.testing.Poll;

import narwhal.netty.EventLoopScheduler;

import static java.nio.charset.StandardCharsets.UTF_8;
import static narwhal.engine.http.TestEngineServer.cut;
import static narwhal.engine.http.TestEngineServer.pieces;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TransportFailure.Kind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NettyEngineTransportTest {

  private static final String JSON = "application/json";
  private static final String SSE = "text/event-stream; charset=utf-8";

  private static EventLoopGroup group;
  private static EventLoopScheduler loop;

  private NettyEngineTransport transport;
  private final List<AutoCloseable> resources = new ArrayList<>();

  @BeforeAll
  static void startGroup() {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    loop = EventLoopScheduler.of(group.next());
  }

  @AfterAll
  static void stopGroup() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @BeforeEach
  void newTransport() {
    transport = new NettyEngineTransport(group, NioSocketChannel.class);
  }

  @AfterEach
  void closeEverything() throws Exception {
    transport.close();
    for (AutoCloseable resource : resources) {
      resource.close();
    }
  }

  private TestEngineServer server(TestEngineServer.Responder responder) {
    TestEngineServer server = new TestEngineServer(responder);
    resources.add(server);
    return server;
  }

  private RawServer rawServer(String response) throws Exception {
    RawServer server = new RawServer(response);
    resources.add(server);
    return server;
  }

  private static RecordingHandler onLoop() {
    return new RecordingHandler(loop::inLoop);
  }

  private static EngineHttpRequest post(String path, String json) {
    return new EngineHttpRequest("POST", path, Map.of("X-Request-Id", "r-1"), json.getBytes(UTF_8));
  }

  private static ExchangeOptions maxBody(int bytes) {
    return new ExchangeOptions(Duration.ofSeconds(5), bytes);
  }

  private Exchange open(URI engine, EngineHttpRequest request, RecordingHandler handler) {
    return transport.open(engine, request, ExchangeOptions.defaults(), loop, handler);
  }

  private RecordingHandler exchange(URI engine) {
    RecordingHandler handler = onLoop();
    open(engine, post("/v1/completions", "{}"), handler);
    handler.awaitEnd();
    return handler;
  }

  // ------------------------------------------------------------------ requests and bodies

  @Test
  void jsonExchange_sendsRequestAsGiven_deliversHeadBodyEndOnTheLoop() {
    TestEngineServer server = server(TestEngineServer.json("{\"id\":\"cmpl-1\",\"text\":\"ü\"}"));
    String body = "{\"prompt\":\"héllo\"}";
    RecordingHandler handler = onLoop();

    open(server.uri(), post("/v1/completions", body), handler);
    handler.awaitEnd();

    assertThat(handler.calls)
        .containsExactly("head 200 " + JSON, "body {\"id\":\"cmpl-1\",\"text\":\"ü\"}", "end");
    assertThat(handler.offThreadCalls()).isEmpty();
    TestEngineServer.Request request = server.requests().get(0);
    assertThat(request.method()).isEqualTo("POST");
    assertThat(request.uri()).isEqualTo("/v1/completions");
    assertThat(request.body()).isEqualTo(body);
    assertThat(request.headers())
        .containsEntry("host", "127.0.0.1:" + server.port())
        .containsEntry("content-type", JSON)
        .containsEntry("content-length", String.valueOf(body.getBytes(UTF_8).length))
        .containsEntry("accept", "application/json, text/event-stream")
        .containsEntry("x-request-id", "r-1")
        .containsEntry("connection", "keep-alive");
  }

  @Test
  void getWithBasePath_prefixesTheTarget_andSendsNoContentType() {
    TestEngineServer server = server(TestEngineServer.json("{}"));
    RecordingHandler handler = onLoop();

    open(URI.create(server.uri() + "/engine/"), EngineHttpRequest.get("/health"), handler);
    handler.awaitEnd();

    assertThat(handler.calls).containsExactly("head 200 " + JSON, "body {}", "end");
    TestEngineServer.Request request = server.requests().get(0);
    assertThat(request.method()).isEqualTo("GET");
    assertThat(request.uri()).isEqualTo("/engine/health");
    assertThat(request.headers()).doesNotContainKey("content-type");
  }

  @Test
  void errorStatus_isDeliveredAsHeadAndBody() {
    TestEngineServer server =
        server(
            (ctx, request) ->
                ctx.writeAndFlush(
                    TestEngineServer.full(
                        HttpResponseStatus.SERVICE_UNAVAILABLE, JSON, "{\"error\":\"busy\"}")));

    RecordingHandler handler = exchange(server.uri());

    assertThat(handler.calls).containsExactly("head 503 " + JSON, "body {\"error\":\"busy\"}", "end");
  }

  @Test
  void bodyOfExactlyTheLimit_isAccepted() {
    String body = "x".repeat(1000);
    TestEngineServer server = server(TestEngineServer.json(body));
    RecordingHandler handler = onLoop();

    transport.open(server.uri(), post("/v1/completions", "{}"), maxBody(1000), loop, handler);
    handler.awaitEnd();

    assertThat(handler.calls).containsExactly("head 200 " + JSON, "body " + body, "end");
  }

  @Test
  void bodyOverTheLimit_failsWithBodyTooLarge_andClosesTheConnection() {
    TestEngineServer server = server(TestEngineServer.json("x".repeat(1001)));
    RecordingHandler handler = onLoop();

    transport.open(server.uri(), post("/v1/completions", "{}"), maxBody(1000), loop, handler);
    handler.awaitEnd();

    assertThat(handler.calls).containsExactly("head 200 " + JSON, "failure BODY_TOO_LARGE");
    Poll.until("the engine sees its connection closed", () -> server.connectionsClosed() == 1);
    Poll.until("no connection left open", () -> transport.openConnections() == 0);
  }

  @Test
  void responseDelimitedByClose_isACompleteBody() throws Exception {
    RawServer server =
        rawServer("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nhello");

    RecordingHandler handler = exchange(server.uri());

    assertThat(handler.calls).containsExactly("head 200 text/plain", "body hello", "end");
  }

  @Test
  void interimContinueResponse_isSkipped() throws Exception {
    RawServer server =
        rawServer(
            "HTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");

    RecordingHandler handler = exchange(server.uri());

    assertThat(handler.calls).containsExactly("head 200 " + JSON, "body {}", "end");
  }

  // ------------------------------------------------------------------ server-sent events

  @Test
  void eventStream_eventsSplitAnywhereAcrossWrites_areDeliveredWholeAndInOrder() {
    String stream =
        "data: {\"a\":1}\n\n"
            + "data: line1\r\ndata:line2\r\n\r\n"
            + ": a comment\n\n"
            + "event: message\nid: 7\nretry: 10\ndata: h\u00e9llo \u20ac\r\r"
            + "data: [DONE]\n\n";
    // Cuts inside "data:", between \r and \n, inside both multi-byte characters, between \r\r.
    TestEngineServer server =
        server(
            TestEngineServer.eventStream(
                cut(
                    stream,
                    3,
                    byteOffset(stream, "\r\ndata:line2") + 1,
                    byteOffset(stream, "\u00e9") + 1,
                    byteOffset(stream, "\u20ac") + 1,
                    byteOffset(stream, "\u20ac") + 2,
                    byteOffset(stream, "\r\rdata: [DONE]") + 1),
                true));
    RecordingHandler handler = onLoop();

    open(server.uri(), post("/v1/completions", "{\"stream\":true}"), handler);
    handler.awaitEnd();

    assertThat(handler.calls)
        .containsExactly(
            "head 200 " + SSE,
            "event {\"a\":1}",
            "event line1\nline2",
            "event h\u00e9llo \u20ac",
            "event [DONE]",
            "end");
    assertThat(handler.offThreadCalls()).isEmpty();
  }

  private static int byteOffset(String text, String needle) {
    return text.substring(0, text.indexOf(needle)).getBytes(UTF_8).length;
  }

  @Test
  void eventStream_engineClosesMidStream_failsWithConnectionClosed() {
    TestEngineServer server = server(TestEngineServer.eventStream(pieces("data: one\n\n", "data: tw"), false));
    RecordingHandler handler = onLoop();

    open(server.uri(), post("/v1/completions", "{}"), handler);
    handler.awaitEnd();

    assertThat(handler.calls).containsExactly("head 200 " + SSE, "event one", "failure CONNECTION_CLOSED");
  }

  @Test
  void eventStream_eventOverTheLimit_failsWithBodyTooLarge_andClosesTheConnection() {
    TestEngineServer server =
        server(
            TestEngineServer.eventStreamThenSilence(
                pieces("data: small\n\n", "data: " + "x".repeat(600), "x".repeat(600) + "\n\n")));
    RecordingHandler handler = onLoop();

    transport.open(server.uri(), post("/v1/completions", "{}"), maxBody(1000), loop, handler);
    handler.awaitEnd();

    assertThat(handler.calls).containsExactly("head 200 " + SSE, "event small", "failure BODY_TOO_LARGE");
    Poll.until("the engine sees its connection closed", () -> server.connectionsClosed() == 1);
  }

  // ------------------------------------------------------------------ connection reuse

  @Test
  void keepAlive_secondExchangeReusesTheConnection() {
    TestEngineServer server = server(TestEngineServer.json("{}"));

    exchange(server.uri());
    assertThat(transport.openConnections()).isEqualTo(1);
    RecordingHandler second = exchange(server.uri());

    assertThat(second.calls).containsExactly("head 200 " + JSON, "body {}", "end");
    assertThat(server.connectionsAccepted()).isEqualTo(1);
    assertThat(server.requests()).extracting(TestEngineServer.Request::connection).containsExactly(1, 1);
    assertThat(transport.openConnections()).isEqualTo(1);
  }

  @Test
  void connectionClose_connectionIsNotReused() {
    TestEngineServer server = server(TestEngineServer.jsonThenClose("{}"));

    exchange(server.uri());
    Poll.until("the first connection is closed", () -> transport.openConnections() == 0);
    RecordingHandler second = exchange(server.uri());

    assertThat(second.calls).containsExactly("head 200 " + JSON, "body {}", "end");
    assertThat(server.connectionsAccepted()).isEqualTo(2);
  }

  @Test
  void idleConnectionClosedByTheEngine_isDropped_andTheNextExchangeConnectsAfresh() {
    // Keep-alive response (no Connection: close), then the engine closes anyway.
    TestEngineServer server =
        server(
            (ctx, request) ->
                ctx.writeAndFlush(TestEngineServer.full(HttpResponseStatus.OK, JSON, "{}"))
                    .addListener(ChannelFutureListener.CLOSE));

    exchange(server.uri());
    Poll.until("the pool notices the close", () -> transport.openConnections() == 0);
    RecordingHandler second = exchange(server.uri());

    assertThat(second.calls).containsExactly("head 200 " + JSON, "body {}", "end");
    assertThat(server.connectionsAccepted()).isEqualTo(2);
  }

  @Test
  void idleConnection_isClosedAfterTheIdleTimeout() {
    TestEngineServer server = server(TestEngineServer.json("{}"));
    NettyEngineTransport shortIdle =
        new NettyEngineTransport(group, NioSocketChannel.class, 64, Duration.ofMillis(100));
    resources.add(shortIdle::close);
    RecordingHandler handler = onLoop();

    shortIdle.open(server.uri(), post("/v1/completions", "{}"), ExchangeOptions.defaults(), loop, handler);
    handler.awaitEnd();

    Poll.until("the engine sees the idle connection closed", () -> server.connectionsClosed() == 1);
    Poll.until("the pool forgets it", () -> shortIdle.openConnections() == 0);
  }

  @Test
  void idleConnections_beyondTheBound_areClosed() {
    // Both requests are answered only once both have arrived, so two connections are in use.
    List<ChannelHandlerContext> waiting = new CopyOnWriteArrayList<>();
    TestEngineServer server =
        server(
            (ctx, request) -> {
              waiting.add(ctx);
              if (waiting.size() == 2) {
                waiting.forEach(
                    c -> c.writeAndFlush(TestEngineServer.full(HttpResponseStatus.OK, JSON, "{}")));
              }
            });
    NettyEngineTransport oneIdle =
        new NettyEngineTransport(group, NioSocketChannel.class, 1, Duration.ofSeconds(60));
    resources.add(oneIdle::close);
    RecordingHandler first = onLoop();
    RecordingHandler second = onLoop();

    oneIdle.open(server.uri(), post("/a", "{}"), ExchangeOptions.defaults(), loop, first);
    oneIdle.open(server.uri(), post("/b", "{}"), ExchangeOptions.defaults(), loop, second);
    first.awaitEnd();
    second.awaitEnd();

    assertThat(first.calls).endsWith("end");
    assertThat(second.calls).endsWith("end");
    assertThat(server.connectionsAccepted()).isEqualTo(2);
    Poll.until("one connection closed", () -> server.connectionsClosed() == 1);
    assertThat(oneIdle.openConnections()).isEqualTo(1);
  }

  @Test
  void close_closesPooledConnections_andLaterExchangesFail() {
    TestEngineServer server = server(TestEngineServer.json("{}"));
    exchange(server.uri());
    assertThat(transport.openConnections()).isEqualTo(1);

    transport.close();

    Poll.until("the engine sees the pooled connection closed", () -> server.connectionsClosed() == 1);
    // The engine can see the FIN before the client loop has run the channel's close listeners,
    // which is where the pool stops counting it.
    Poll.until("the pool to count no open connection", () -> transport.openConnections() == 0);
    RecordingHandler late = exchange(server.uri());
    assertThat(late.calls).containsExactly("failure CONNECT_FAILED");
  }

  // ------------------------------------------------------------------ readied connections

  private void prepareOnTheLoop(URI engine) {
    loop.execute(() -> transport.prepare(engine, ExchangeOptions.defaults(), loop));
  }

  @Test
  void prepare_opensOneConnectionAhead_andTheNextExchangeTakesIt() {
    TestEngineServer server = server(TestEngineServer.json("{}"));

    loop.execute(() -> {
      transport.prepare(server.uri(), ExchangeOptions.defaults(), loop);
      transport.prepare(server.uri(), ExchangeOptions.defaults(), loop); // one is under way already
    });
    Poll.until("the readied connection waits in the pool", () -> transport.openConnections() == 1);
    prepareOnTheLoop(server.uri()); // one is idle already
    RecordingHandler handler = exchange(server.uri());

    assertThat(handler.calls).containsExactly("head 200 " + JSON, "body {}", "end");
    assertThat(server.requests()).extracting(TestEngineServer.Request::connection).containsExactly(1);
    assertThat(server.connectionsAccepted()).isEqualTo(1);
    assertThat(transport.openConnections()).isEqualTo(1);
  }

  @Test
  void prepare_afterTheEngineClosedTheLastConnection_readiesAFreshOne() {
    TestEngineServer server = server(TestEngineServer.jsonThenClose("{}"));
    exchange(server.uri());
    Poll.until("the engine's close reaches the pool", () -> transport.openConnections() == 0);

    prepareOnTheLoop(server.uri());
    Poll.until("a fresh connection waits in the pool", () -> transport.openConnections() == 1);
    RecordingHandler second = exchange(server.uri());

    assertThat(second.calls).containsExactly("head 200 " + JSON, "body {}", "end");
    assertThat(server.requests()).extracting(TestEngineServer.Request::connection).containsExactly(1, 2);
    assertThat(server.connectionsAccepted()).isEqualTo(2);
  }

  @Test
  void prepare_toAnEngineThatRefuses_isDropped_andTheExchangeReportsItsOwnFailure() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    URI refusing = URI.create("http://127.0.0.1:" + port);

    prepareOnTheLoop(refusing);
    RecordingHandler handler = exchange(refusing);

    assertThat(handler.calls).containsExactly("failure CONNECT_FAILED");
    assertThat(transport.openConnections()).isZero();
  }

  @Test
  void prepare_withABaseOpenWouldRefuse_throwsNothing_andLeavesItToTheExchange() {
    URI ftp = URI.create("ftp://127.0.0.1:1");

    CompletableFuture.runAsync(() -> transport.prepare(ftp, ExchangeOptions.defaults(), loop), loop::execute)
        .join();

    assertThat(transport.openConnections()).isZero();
    assertThat(catchThrowable(() -> transport.open(ftp, post("/v1/completions", "{}"), ExchangeOptions.defaults(),
        loop, onLoop()))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void close_closesAReadiedConnection() {
    TestEngineServer server = server(TestEngineServer.json("{}"));
    prepareOnTheLoop(server.uri());
    Poll.until("the readied connection waits in the pool", () -> transport.openConnections() == 1);

    transport.close();

    Poll.until("the engine sees the readied connection closed", () -> server.connectionsClosed() == 1);
    Poll.until("the pool to count no open connection", () -> transport.openConnections() == 0);
  }

  // ------------------------------------------------------------------ connect failures

  @Test
  void connectionRefused_failsWithConnectFailed() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }

    RecordingHandler handler = exchange(URI.create("http://127.0.0.1:" + port));

    assertThat(handler.calls).containsExactly("failure CONNECT_FAILED");
    assertThat(handler.offThreadCalls()).isEmpty();
    assertThat(transport.openConnections()).isZero();
  }

  @Test
  void connectSlowerThanTheTimeout_failsWithConnectTimeout() {
    NettyEngineTransport blackHole = new NettyEngineTransport(group, NeverConnectingChannel.class);
    resources.add(blackHole::close);
    RecordingHandler handler = onLoop();

    blackHole.open(
        URI.create("http://127.0.0.1:9"),
        post("/v1/completions", "{}"),
        new ExchangeOptions(Duration.ofMillis(100), 1000),
        loop,
        handler);
    handler.awaitEnd();

    assertThat(handler.calls).containsExactly("failure CONNECT_TIMEOUT");
    assertThat(handler.offThreadCalls()).isEmpty();
    assertThat(blackHole.openConnections()).isZero();
  }

  @Test
  void cancelWhileConnecting_closesThePendingSocketAtOnce() {
    NettyEngineTransport blackHole = new NettyEngineTransport(group, NeverConnectingChannel.class);
    resources.add(blackHole::close);
    NeverConnectingChannel.CREATED.clear();
    RecordingHandler handler = onLoop();

    // A connect timeout far beyond the test's: only the cancel can close this socket in time.
    Exchange exchange = blackHole.open(
        URI.create("http://127.0.0.1:9"),
        post("/v1/completions", "{}"),
        new ExchangeOptions(Duration.ofSeconds(120), 1000),
        loop,
        handler);
    Poll.until("the connect to be pending", () -> !NeverConnectingChannel.CREATED.isEmpty());
    NeverConnectingChannel pending = NeverConnectingChannel.CREATED.peek();
    loop.execute(exchange::cancel);

    Poll.until("the pending socket to be closed", () -> !pending.isOpen());
    Poll.pause(50);
    assertThat(handler.calls).as("a cancelled exchange reports nothing").isEmpty();
    assertThat(blackHole.openConnections()).isZero();
  }

  @Test
  void hostName_isResolvedOffTheLoop_andConnects() {
    TestEngineServer server = server(TestEngineServer.json("{}"));

    RecordingHandler handler = exchange(URI.create("http://localhost:" + server.port()));

    assertThat(handler.calls).containsExactly("head 200 " + JSON, "body {}", "end");
    assertThat(handler.offThreadCalls()).isEmpty();
    assertThat(server.requests().get(0).headers()).containsEntry("host", "localhost:" + server.port());
  }

  // ------------------------------------------------------------------ malformed and truncated

  @Test
  void malformedResponse_failsWithProtocolError() throws Exception {
    RawServer server = rawServer("NOT-HTTP garbage\r\n\r\n");

    RecordingHandler handler = exchange(server.uri());

    assertThat(handler.calls).containsExactly("failure PROTOCOL_ERROR");
  }

  @Test
  void bodyCutShortOfContentLength_failsWithConnectionClosed() throws Exception {
    RawServer server =
        rawServer("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":");

    RecordingHandler handler = exchange(server.uri());

    assertThat(handler.calls).containsExactly("head 200 " + JSON, "failure CONNECTION_CLOSED");
  }

  @Test
  void connectionClosedBeforeAnyResponse_failsWithConnectionClosed() throws Exception {
    RawServer server = rawServer("");

    RecordingHandler handler = exchange(server.uri());

    assertThat(handler.calls).containsExactly("failure CONNECTION_CLOSED");
  }

  // ------------------------------------------------------------------ cancel, pause, handler errors

  @Test
  void cancel_closesTheEngineConnectionPromptly_andNothingFollows() {
    TestEngineServer server =
        server(TestEngineServer.eventStreamThenSilence(pieces("data: first\n\n")));
    AtomicReference<Exchange> exchange = new AtomicReference<>();
    RecordingHandler handler = onLoop();
    handler.onEventHook = data -> exchange.get().cancel();

    exchange.set(open(server.uri(), post("/v1/completions", "{}"), handler));

    Poll.until("the engine sees the connection closed", () -> server.connectionsClosed() == 1);
    Poll.until("the pool has no connection", () -> transport.openConnections() == 0);
    // Let any stray callback that the close might trigger arrive before looking.
    Poll.pause(50);
    assertThat(handler.calls).containsExactly("head 200 " + SSE, "event first");
    loop.execute(exchange.get()::cancel); // idempotent
  }

  @Test
  void pause_stopsReadingFromTheEngine_untilResume() {
    int events = 4096;
    AtomicBoolean fullyWritten = new AtomicBoolean();
    TestEngineServer server = server(TestEngineServer.eventFlood(events, 4096, fullyWritten));
    AtomicReference<Exchange> exchange = new AtomicReference<>();
    RecordingHandler handler = onLoop();
    handler.onEventHook =
        data -> {
          if (handler.events.size() == 1) {
            exchange.get().pause();
          }
        };

    exchange.set(open(server.uri(), post("/v1/completions", "{}"), handler));
    Poll.until("the first event", () -> !handler.events.isEmpty());
    int settled = awaitSettledCount(handler);
    // 16 MiB cannot fit in socket buffers: while paused the engine is held back.
    for (int i = 0; i < 10; i++) {
      Poll.pause(30);
      assertThat(handler.events).hasSize(settled);
    }
    assertThat(fullyWritten).isFalse();
    assertThat(settled).isLessThan(events);

    loop.execute(exchange.get()::resume);
    handler.awaitEnd();

    assertThat(handler.events).hasSize(events);
    assertThat(handler.calls).last().isEqualTo("end");
    // The server learns its write completed on its own loop, possibly after the client read it all.
    Poll.until("the engine's write of every event completed", fullyWritten::get);
    assertThat(handler.events.get(events - 1)).startsWith(String.format("%07d ", events - 1));
  }

  /**
   * Waits until the event count stops moving: events already read when the pause took effect are
   * still delivered. Stable over three samples 50 ms apart counts as settled.
   */
  private static int awaitSettledCount(RecordingHandler handler) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int current = handler.events.size();
    int stableSamples = 0;
    while (stableSamples < 3) {
      assertThat(System.nanoTime() - deadline).as("event count settles").isNegative();
      Poll.pause(50);
      int next = handler.events.size();
      stableSamples = next == current ? stableSamples + 1 : 0;
      current = next;
    }
    return current;
  }

  @Test
  void handlerThatThrows_failsTheExchangeWithProtocolError_andClosesTheConnection() {
    TestEngineServer server =
        server(TestEngineServer.eventStreamThenSilence(pieces("data: {not json\n\ndata: more\n\n")));
    RecordingHandler handler =
        new RecordingHandler(loop::inLoop) {
          @Override
          public void onEvent(String data) {
            super.onEvent(data);
            throw new IllegalArgumentException("cannot parse " + data);
          }
        };

    open(server.uri(), post("/v1/completions", "{}"), handler);
    handler.awaitEnd();

    assertThat(handler.calls)
        .containsExactly("head 200 " + SSE, "event {not json", "failure PROTOCOL_ERROR");
    assertThat(handler.failure.kind()).isEqualTo(Kind.PROTOCOL_ERROR);
    assertThat(handler.failure.getCause()).isInstanceOf(IllegalArgumentException.class);
    Poll.until("the engine sees the connection closed", () -> server.connectionsClosed() == 1);
  }

  // ------------------------------------------------------------------ callers off the event loop

  @Test
  void otherScheduler_callbacksRunOnlyWhenItRunsThem() {
    TestEngineServer server = server(TestEngineServer.json("{}"));
    LockedManualScheduler manual = new LockedManualScheduler();
    Thread testThread = Thread.currentThread();
    RecordingHandler handler = new RecordingHandler(() -> Thread.currentThread() == testThread);

    transport.open(server.uri(), post("/v1/completions", "{}"), ExchangeOptions.defaults(), manual, handler);
    Poll.until("head, body and end are queued", () -> manual.pendingTasks() == 3);

    assertThat(handler.calls).isEmpty();
    manual.runPending();

    assertThat(handler.calls).containsExactly("head 200 " + JSON, "body {}", "end");
    assertThat(handler.offThreadCalls()).isEmpty();
    assertThat(transport.openConnections()).isEqualTo(1);
  }

  @Test
  void otherScheduler_cancelInACallback_dropsQueuedCallbacks_andClosesTheConnection() {
    TestEngineServer server =
        server(TestEngineServer.eventStreamThenSilence(pieces("data: a\n\ndata: b\n\n")));
    LockedManualScheduler manual = new LockedManualScheduler();
    AtomicReference<Exchange> exchange = new AtomicReference<>();
    RecordingHandler handler = new RecordingHandler(() -> true);
    handler.onEventHook = data -> exchange.get().cancel();

    exchange.set(
        transport.open(server.uri(), post("/v1/completions", "{}"), ExchangeOptions.defaults(), manual, handler));
    Poll.until("head and two events are queued", () -> manual.pendingTasks() == 3);
    manual.runPending();

    assertThat(handler.calls).containsExactly("head 200 " + SSE, "event a");
    Poll.until("the engine sees the connection closed", () -> server.connectionsClosed() == 1);
    Poll.pause(50);
    manual.runPending();
    assertThat(handler.calls).containsExactly("head 200 " + SSE, "event a");
  }
}
