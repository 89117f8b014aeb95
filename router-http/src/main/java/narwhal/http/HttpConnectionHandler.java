package narwhal.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import narwhal.api.AdmissionTicket;
import narwhal.api.ClientErrors;
import narwhal.api.CompletionService;
import narwhal.api.InvalidRequestException;
import narwhal.api.RouterError;
import narwhal.api.ServedModel;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import narwhal.netty.EventLoopScheduler;
import narwhal.openai.Json;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: routes each request, collects completion bodies within the size limit,
 * submits them, and serves one request at a time.
 *
 * <p>While a completion is in flight the channel keeps reading, so that a client disconnect is
 * seen (and the request cancelled) even when nothing is being written; anything the client
 * pipelines behind the request waits in a backlog and is served once the current response is
 * fully written. The backlog is bounded: past {@code maxRequestBytes} the channel stops reading
 * until it drains. Everything runs on the channel's event loop.
 */
final class HttpConnectionHandler extends ChannelInboundHandlerAdapter
    implements CompletionExchange.Listener {

  private static final Logger log = LoggerFactory.getLogger(HttpConnectionHandler.class);

  /** How long a refused connection goes on reading what its client still sends; see lingerAfter. */
  static final long LINGER_MS = 2_000;

  private enum State {
    /** Waiting for a request head. */
    IDLE,
    /** Collecting a completion body. */
    READING_BODY,
    /** Already answered; skipping the rest of the request's body. */
    DISCARDING_BODY,
    /** A completion is in flight; new input waits in the backlog. */
    RESPONDING,
    /** The connection is closing; input is dropped. */
    CLOSING
  }

  private final HttpFrontEndOptions options;
  private final CompletionService service;
  private final @Nullable PrometheusExposition metrics;
  private final long startedEpochSeconds;
  private final ArrayDeque<Object> backlog = new ArrayDeque<>();
  /** An estimate of the memory the backlog holds: content bytes plus a flat cost per head. */
  private long backlogBytes;
  private State state = State.IDLE;
  private boolean draining;
  private @Nullable ChannelHandlerContext ctx;

  // The request being read or served.
  private boolean keepAlive;
  private @Nullable Route route;
  private @Nullable RequestBodyBuffer body;
  private @Nullable String clientRequestId;
  private long arrivalNanos;
  /** The admission of the request whose body is being read; null once submitted or ended. */
  private @Nullable AdmissionTicket ticket;
  /** Ends the ticket if its body has not arrived by the request's deadline; see armBodyDeadline. */
  private Timer bodyDeadline = Timer.NONE;
  private @Nullable CompletionExchange exchange;

  HttpConnectionHandler(
      HttpFrontEndOptions options, CompletionService service, long startedEpochSeconds) {
    this(options, service, null, startedEpochSeconds);
  }

  HttpConnectionHandler(HttpFrontEndOptions options, CompletionService service,
      @Nullable PrometheusExposition metrics, long startedEpochSeconds) {
    this.options = options;
    this.service = service;
    this.metrics = metrics;
    this.startedEpochSeconds = startedEpochSeconds;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (state == State.CLOSING) {
      ReferenceCountUtil.release(msg);
    } else if (state == State.RESPONDING || !backlog.isEmpty()) {
      holdBack(ctx, msg);
    } else {
      processAndRelease(msg);
    }
  }

  private void holdBack(ChannelHandlerContext ctx, Object msg) {
    backlog.add(msg);
    backlogBytes += heldBytes(msg);
    if (backlogBytes > options.maxRequestBytes()) {
      // A client pipelining this much gives up prompt disconnect detection until it drains.
      ctx.channel().config().setAutoRead(false);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable() && exchange != null) {
      exchange.channelWritable();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    state = State.CLOSING;
    body = null;
    if (ticket != null) {
      // Gone before its body was complete: the core frees the seat and journals it cancelled.
      takeTicket().abandon();
    }
    if (exchange != null) {
      exchange.clientGone();
      exchange = null;
    }
    releaseBacklog();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("closing client connection {} after an error", ctx.channel(), cause);
    ctx.close();
  }

  @Override
  public void responseDone(ChannelFuture lastWrite, boolean close) {
    exchange = null;
    if (close) {
      closeAfter(lastWrite);
      return;
    }
    state = State.IDLE;
    resumeReading();
  }

  private void processAndRelease(Object msg) {
    try {
      if (msg instanceof HttpRequest) {
        onHead((HttpRequest) msg);
      }
      if (msg instanceof HttpContent) {
        onContent((HttpContent) msg);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  /** Serves what the client pipelined, then reads again if nothing is in flight. */
  private void resumeReading() {
    if (draining) {
      return; // the loop below picks up where the nested call left off
    }
    draining = true;
    try {
      while (!backlog.isEmpty() && canProcess()) {
        processAndRelease(pollBacklog());
      }
    } finally {
      draining = false;
    }
    if (canProcess() && ctx().channel().isActive()) {
      ctx().channel().config().setAutoRead(true);
    }
  }

  private boolean canProcess() {
    return state == State.IDLE || state == State.READING_BODY || state == State.DISCARDING_BODY;
  }

  private void onHead(HttpRequest request) {
    if (state != State.IDLE) {
      return;
    }
    if (failed(request.decoderResult())) {
      return;
    }
    keepAlive = HttpUtil.isKeepAlive(request);
    String path = new QueryStringDecoder(request.uri()).path();
    Endpoint endpoint = Endpoint.forPath(path);
    state = State.DISCARDING_BODY;
    if (endpoint == null) {
      reply(Responses.error(Responses.notFound(request.method().name(), path), null));
    } else if (!endpoint.method.equals(request.method())) {
      FullHttpResponse response =
          Responses.error(
              Responses.methodNotAllowed(
                  request.method().name(), path, endpoint.method.name()),
              null);
      response.headers().set(HttpHeaderNames.ALLOW, endpoint.method.name());
      reply(response);
    } else if (endpoint.route == null) {
      reply(informational(endpoint));
    } else {
      startBody(request, endpoint.route);
    }
  }

  private void startBody(HttpRequest request, Route route) {
    Scheduler loop = scheduler();
    arrivalNanos = loop.nanoTime();
    this.route = route;
    clientRequestId = request.headers().get(Responses.REQUEST_ID_HEADER);
    // Admission is decided on the headers alone: an overloaded or draining router answers before
    // reading (or buffering) a byte of the body, which is then skipped.
    AdmissionTicket admitted = service.admit(loop, arrivalNanos, clientRequestId);
    RouterError refusal = admitted.refusal();
    if (refusal != null) {
      reply(Responses.error(refusal, admitted.requestId()));
      return;
    }
    ticket = admitted;
    armBodyDeadline(admitted);
    long contentLength;
    try {
      contentLength = HttpUtil.getContentLength(request, -1L);
    } catch (NumberFormatException e) {
      refuseBodyAndClose(Responses.malformedHttp("bad Content-Length"));
      return;
    }
    if (contentLength > options.maxRequestBytes()) {
      // Refused before reading a byte of it; the connection closes since the body may follow.
      refuseBodyAndClose(ClientErrors.requestTooLarge(options.maxRequestBytes()));
      return;
    }
    if (HttpUtil.is100ContinueExpected(request)) {
      ctx().writeAndFlush(
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
    }
    body = new RequestBodyBuffer(options.maxRequestBytes(), contentLength);
    state = State.READING_BODY;
  }

  private void onContent(HttpContent content) {
    if (state == State.READING_BODY) {
      if (content.decoderResult().isFailure()) {
        refuseBodyAndClose(malformed(content.decoderResult()));
        return;
      }
      if (!body().append(content.content())) {
        body = null;
        refuseBodyAndClose(ClientErrors.requestTooLarge(options.maxRequestBytes()));
        return;
      }
      if (content instanceof LastHttpContent) {
        state = State.RESPONDING;
        dispatch();
      }
    } else if (state == State.DISCARDING_BODY && content instanceof LastHttpContent) {
      state = State.IDLE;
    }
  }

  private void dispatch() {
    byte[] bytes = body().toByteArray();
    body = null;
    Route route = this.route;
    AdmissionTicket admitted = takeTicket();
    CompletionRequest request;
    try {
      // Accepted requests run on the served model, whatever (if anything) the client named.
      request = ServedModel.pin(OpenAiRequestCodec.parse(bytes, route, clientRequestId), service.model());
    } catch (InvalidRequestException e) {
      admitted.invalid(e.error());
      replyAndFinish(Responses.error(e.error(), admitted.requestId()));
      return;
    }
    CompletionExchange started =
        request.getStream()
            ? new StreamingExchange(ctx(), route, keepAlive, wantsTokenIds(request), this)
            : new AssembledExchange(ctx(), route, keepAlive, options.maxResponseBytes(), this);
    exchange = started;
    try {
      started.submit(service, admitted, request);
    } catch (RuntimeException e) {
      log.error("CompletionService.submit failed", e);
      admitted.abandon(); // frees the seat unless the core already took the ticket over
      started.abandon();
      exchange = null;
      rejectAndClose(Responses.internalError());
    }
  }

  private static boolean wantsTokenIds(CompletionRequest request) {
    return "true".equals(request.getExtraFieldsMap().get("return_token_ids"));
  }

  private FullHttpResponse informational(Endpoint endpoint) {
    ObjectNode body = Json.mapper().createObjectNode();
    switch (endpoint) {
      case MODELS:
        body.put("object", "list");
        body.putArray("data")
            .addObject()
            .put("id", service.model())
            .put("object", "model")
            .put("created", startedEpochSeconds)
            .put("owned_by", "narwhal");
        return Responses.json(HttpResponseStatus.OK, body);
      case HEALTH:
        return Responses.json(HttpResponseStatus.OK, body.put("status", "ok"));
      case METRICS:
        return metricsResponse();
      case READY:
        String notReady = service.notReadyReason();
        return notReady == null
            ? Responses.json(HttpResponseStatus.OK, body.put("status", "ready"))
            : Responses.json(HttpResponseStatus.SERVICE_UNAVAILABLE,
                body.put("status", "not ready").put("reason", notReady));
      case STATE:
        Map<String, Object> state = service.stateDocument(scheduler());
        return state == null
            ? Responses.error(Responses.notFound("GET", Endpoint.STATE.path), null)
            : Responses.json(HttpResponseStatus.OK, Json.mapper().valueToTree(state));
      default:
        throw new IllegalArgumentException("not informational: " + endpoint);
    }
  }

  private FullHttpResponse metricsResponse() {
    if (metrics == null) {
      return Responses.error(Responses.notFound("GET", Endpoint.METRICS.path), null);
    }
    FullHttpResponse response = Responses.json(HttpResponseStatus.OK, metrics.scrape());
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, PrometheusExposition.CONTENT_TYPE);
    return response;
  }

  /** The body is refused (400, 413): the core journals it as invalid; answer and close. */
  private void refuseBodyAndClose(RouterError error) {
    AdmissionTicket admitted = takeTicket();
    body = null;
    admitted.invalid(error);
    rejectAndClose(Responses.error(error, admitted.requestId()));
  }

  /** A malformed request line or header block: answer 400 and close. */
  private boolean failed(DecoderResult result) {
    if (!result.isFailure()) {
      return false;
    }
    rejectAndClose(Responses.error(malformed(result), null));
    return true;
  }

  /** The 400 for what the HTTP decoder could not decode (a head or a chunk). */
  private static RouterError malformed(DecoderResult result) {
    Throwable cause = result.cause();
    return Responses.malformedHttp(cause == null ? "undecodable" : String.valueOf(cause.getMessage()));
  }

  /** Answers the request without reading its body; the connection may stay open. */
  private void reply(FullHttpResponse response) {
    HttpUtil.setKeepAlive(response, keepAlive);
    ChannelFuture written = ctx().writeAndFlush(response);
    if (!keepAlive) {
      closeAfter(written);
    }
  }

  /** Answers a request whose body was read in full, then serves the next one. */
  private void replyAndFinish(FullHttpResponse response) {
    HttpUtil.setKeepAlive(response, keepAlive);
    responseDone(ctx().writeAndFlush(response), !keepAlive);
  }

  private void rejectAndClose(FullHttpResponse response) {
    HttpUtil.setKeepAlive(response, false);
    lingerAfter(ctx().writeAndFlush(response));
  }

  /**
   * Ends a connection refused while its client may still be sending the body (413, a malformed
   * request). Closing at once over unread input makes the kernel reset the connection, so the
   * client's write fails before it reads the answer: Node's fetch, under the OpenAI SDK, then
   * reports EPIPE instead of the 413. So, as web servers do: the answer is followed by a FIN, input
   * is read and dropped, and the channel closes when the client closes, at most {@link #LINGER_MS}
   * later.
   */
  private void lingerAfter(ChannelFuture lastWrite) {
    state = State.CLOSING;
    body = null;
    releaseBacklog();
    Channel channel = ctx().channel();
    if (!(channel instanceof DuplexChannel duplex)) {
      closeAfter(lastWrite);
      return;
    }
    channel.config().setAutoRead(true); // the backlog may have paused reading
    Timer lingering = scheduler().schedule(channel::close, LINGER_MS, TimeUnit.MILLISECONDS);
    channel.closeFuture().addListener(closed -> lingering.cancel());
    lastWrite.addListener(
        (ChannelFutureListener) written -> {
          if (written.isSuccess()) {
            duplex.shutdownOutput();
          } else {
            channel.close();
          }
        });
  }

  private void closeAfter(ChannelFuture lastWrite) {
    state = State.CLOSING;
    body = null;
    releaseBacklog();
    lastWrite.addListener(ChannelFutureListener.CLOSE);
  }

  private Object pollBacklog() {
    Object msg = backlog.poll();
    backlogBytes -= heldBytes(msg);
    return msg;
  }

  private static long heldBytes(Object msg) {
    return msg instanceof HttpContent ? ((HttpContent) msg).content().readableBytes() : 1024;
  }

  private void releaseBacklog() {
    while (!backlog.isEmpty()) {
      ReferenceCountUtil.release(pollBacklog());
    }
  }

  private Scheduler scheduler() {
    return EventLoopScheduler.of(ctx().channel().eventLoop());
  }

  private ChannelHandlerContext ctx() {
    ChannelHandlerContext c = ctx;
    if (c == null) {
      throw new IllegalStateException("handler not added to a pipeline");
    }
    return c;
  }

  /**
   * Bounds the body upload by what is left of the request's deadline: the seat is held from the
   * headers on, and a client that sends headers then stalls must not keep it past the time the
   * request could have run in all.
   */
  private void armBodyDeadline(AdmissionTicket admitted) {
    long limit = admitted.timeLimitNanos();
    if (limit == Long.MAX_VALUE) {
      return;
    }
    long remaining = admitted.arrivalNanos() + limit - admitted.loop().nanoTime();
    bodyDeadline = admitted.loop().schedule(this::bodyTimedOut, Math.max(0, remaining), TimeUnit.NANOSECONDS);
  }

  /** The body did not arrive in time: 408, the core journals it expired, and the connection closes. */
  private void bodyTimedOut() {
    bodyDeadline = Timer.NONE;
    if (state != State.READING_BODY || ticket == null) {
      return;
    }
    AdmissionTicket admitted = takeTicket();
    body = null;
    RouterError error = ClientErrors.bodyTimeout(admitted.timeLimitNanos());
    admitted.expired(error);
    rejectAndClose(Responses.error(error, admitted.requestId()));
  }

  /** The admitted request leaves the connection's hands (submitted or ended): its body deadline goes too. */
  private AdmissionTicket takeTicket() {
    AdmissionTicket t = ticket;
    if (t == null) {
      throw new IllegalStateException("no admitted request in progress");
    }
    ticket = null;
    bodyDeadline.cancel();
    bodyDeadline = Timer.NONE;
    return t;
  }

  private RequestBodyBuffer body() {
    RequestBodyBuffer b = body;
    if (b == null) {
      throw new IllegalStateException("no request body in progress");
    }
    return b;
  }
}
