package narwhal.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import narwhal.api.FrontEndMetrics;
import narwhal.api.AdmissionTicket;
import narwhal.api.Arrival;
import narwhal.api.Caller;
import narwhal.api.FrontEnd;
import narwhal.api.TraceContext;
import narwhal.api.ClientErrors;
import narwhal.api.CompletionService;
import narwhal.api.InvalidRequestException;
import narwhal.api.RouterError;
import narwhal.api.AuthErrors;
import narwhal.api.Authentication;
import narwhal.time.Scheduler;
import narwhal.netty.EventLoopScheduler;
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
 * until it drains. Everything runs on the channel's event loop except decoding a large body,
 * which {@link BodyDecoder} does on its own threads while the connection holds the request's
 * admission ticket (see {@link #dispatch()}).
 *
 * <p>Why one class of about 500 lines: it is the connection's state machine ({@code State}), and
 * each request's ticket, body and responder change hands only at its transitions, which must free
 * each exactly once on every path (answer, refusal, timeout, disconnect). What is not a transition
 * lives elsewhere: the informational answers ({@link InformationalRoutes}), the pipelined backlog
 * ({@link PipelinedBacklog}), the lingering close ({@link LingeringClose}), the upload deadline
 * ({@link AdmittedUpload}), off-loop decoding ({@link BodyDecoder}), the responses themselves
 * ({@link CompletionResponder}) and the connection timeouts ({@link ConnectionTimeouts}).
 */
final class HttpConnectionHandler extends ChannelInboundHandlerAdapter
    implements CompletionResponder.Listener {

  private static final Logger log = LoggerFactory.getLogger(HttpConnectionHandler.class);

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
  private final InformationalRoutes informational;
  private final BodyDecoder decoder;
  private final PipelinedBacklog backlog = new PipelinedBacklog();
  private State state = State.IDLE;
  private boolean draining;
  private @Nullable ChannelHandlerContext ctx;

  // The request being read or served.
  private boolean keepAlive;
  /** HTTP/1.0: a stream cannot be chunked, so it is sent close-delimited. */
  private boolean http10;
  private @Nullable Route route;
  private @Nullable RequestBodyBuffer body;
  private @Nullable String clientRequestId;
  /** The admitted request whose body is being read; null once submitted or ended. */
  private @Nullable AdmittedUpload upload;
  private @Nullable CompletionResponder responder;
  /** A body being decoded off the loop; it owns the admitted ticket until the result is back. */
  private @Nullable PendingDecode decoding;

  /** The ticket of a body on the decoder's threads, and the task to cancel if the client leaves. */
  private static final class PendingDecode {
    final AdmissionTicket.Admitted ticket;
    @Nullable Future<?> task;

    PendingDecode(AdmissionTicket.Admitted ticket) {
      this.ticket = ticket;
    }
  }

  HttpConnectionHandler(HttpFrontEndOptions options, CompletionService service,
      @Nullable FrontEndMetrics metrics, long startedEpochSeconds, BodyDecoder decoder) {
    this.options = options;
    this.service = service;
    this.decoder = decoder;
    this.informational = new InformationalRoutes(service, metrics, startedEpochSeconds);
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
    if (backlog.hold(msg, options.maxRequestBytes())) {
      // A client pipelining this much gives up prompt disconnect detection until it drains.
      ctx.channel().config().setAutoRead(false);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable() && responder != null) {
      responder.channelWritable();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    state = State.CLOSING;
    body = null;
    if (upload != null) {
      // Gone before its body was complete: the core frees the seat and journals it cancelled.
      takeTicket().abandon();
    }
    PendingDecode pending = decoding;
    if (pending != null) {
      // Gone while its body was decoding: the result is dropped when it comes back (decoding no
      // longer points at it), and the seat is freed here, once.
      decoding = null;
      if (pending.task != null) {
        decoder.cancel(pending.task);
      }
      pending.ticket.abandon();
    }
    if (responder != null) {
      responder.clientGone();
      responder = null;
    }
    backlog.releaseAll();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("closing client connection {} after an error", ctx.channel(), cause);
    ctx.close();
  }

  @Override
  public void responseDone(ChannelFuture lastWrite, boolean close) {
    responder = null;
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
        processAndRelease(backlog.poll());
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
    http10 = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
    String path = new QueryStringDecoder(request.uri()).path();
    Endpoint endpoint = Endpoint.forPath(path);
    state = State.DISCARDING_BODY;
    if (endpoint == null) {
      reply(Responses.error(Responses.notFound(request.method().name(), path), null));
    } else if (!endpoint.allows(request.method())) {
      FullHttpResponse response =
          Responses.error(Responses.methodNotAllowed(request.method().name(), path, endpoint.allowed()), null);
      response.headers().set(HttpHeaderNames.ALLOW, endpoint.allowed());
      reply(response);
    } else if (endpoint.route == null) {
      RouterError refused = endpoint.operatorOnly() ? operatorRefusal(request) : null;
      if (refused != null) {
        reply(challenge(Responses.error(refused, null)));
        return;
      }
      FullHttpResponse answer = informational.answer(endpoint, path, scheduler());
      reply(request.method().equals(HttpMethod.HEAD) ? Responses.headersOnly(answer) : answer);
    } else {
      startBody(request, endpoint.route);
    }
  }

  private void startBody(HttpRequest request, Route route) {
    Scheduler loop = scheduler();
    this.route = route;
    clientRequestId = request.headers().get(Responses.REQUEST_ID_HEADER);
    // Authentication and admission are decided on the headers alone: an unknown caller, or an
    // overloaded or draining router, is answered before a byte of the body is read (or buffered),
    // and the body is then skipped.
    Authentication auth = service.authenticator().authenticate(authorization(request));
    Arrival arrival = Arrival.now(loop, FrontEnd.HTTP, auth.caller() == null ? Caller.ANONYMOUS : auth.caller(),
        clientRequestId, null, new TraceContext(TraceContext.joined(request.headers().getAll("traceparent")),
            TraceContext.joined(request.headers().getAll("tracestate"))));
    if (auth.caller() == null) {
      service.rejectUnauthenticated(arrival, auth);
      reply(challenge(Responses.error(auth.refusal(), arrival.requestId())));
      return;
    }
    AdmissionTicket ticket = service.admit(arrival);
    if (ticket instanceof AdmissionTicket.Refused refused) {
      reply(Responses.error(refused.error(), refused.requestId()));
      return;
    }
    AdmissionTicket.Admitted admitted = (AdmissionTicket.Admitted) ticket;
    upload = AdmittedUpload.start(admitted, this::bodyTimedOut);
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
      ctx().writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
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

  /**
   * The body is complete: decode it, then submit. A large body is decoded off the loop (see {@link
   * BodyDecoder}); meanwhile the state stays RESPONDING, so pipelined input waits in the backlog,
   * and the ticket is held by {@link #decoding}. A disconnect settles it (abandon), otherwise the
   * result's return does: whichever comes first clears the field, so exactly one of them does.
   */
  private void dispatch() {
    byte[] bytes = body().toByteArray();
    body = null;
    Route route = this.route;
    AdmissionTicket.Admitted admitted = takeTicket();
    if (decoder.decodesInline(bytes.length)) {
      decoded(admitted, route, decoder.decodeNow(bytes, route, clientRequestId));
      return;
    }
    PendingDecode pending = new PendingDecode(admitted);
    decoding = pending;
    ChannelHandlerContext ctx = ctx();
    pending.task = decoder.decodeLater(bytes, route, clientRequestId, outcome -> {
      try {
        ctx.executor().execute(() -> decodedLater(pending, route, outcome));
      } catch (RejectedExecutionException e) {
        // The loop is shutting down: its channels close, and channelInactive frees the seat.
        log.debug("decoded body dropped: event loop shut down", e);
      }
    });
    if (pending.task == null) {
      decoding = null;
      RouterError busy = Responses.decoderBusy();
      // The ticket has no "refused after admission" ending; invalid records the 503 it got.
      admitted.invalid(busy);
      replyAndFinish(Responses.error(busy, admitted.requestId()));
    }
  }

  private void decodedLater(PendingDecode pending, Route route, BodyDecoder.Decoded outcome) {
    if (decoding != pending) {
      return; // the client left meanwhile, and its ticket was abandoned then
    }
    decoding = null;
    decoded(pending.ticket, route, outcome);
  }

  private void decoded(AdmissionTicket.Admitted admitted, Route route, BodyDecoder.Decoded outcome) {
    InvalidRequestException invalid = outcome.invalid();
    if (invalid != null) {
      admitted.invalid(invalid.error());
      replyAndFinish(Responses.error(invalid.error(), admitted.requestId()));
      return;
    }
    // The core pins the request to the served model and applies the trace context that came with it.
    CompletionRequest request = outcome.request();
    if (request == null) {
      log.error("decoding a request body failed", outcome.failure());
      admitted.abandon();
      rejectAndClose(Responses.internalError());
      return;
    }
    CompletionResponder started =
        request.getStream()
            ? new StreamingResponder(ctx(), route, keepAlive, http10,
                StreamingResponder.wantsTokenIds(request), this)
            : new AssembledResponder(ctx(), route, keepAlive, options.maxResponseBytes(), this);
    responder = started;
    try {
      started.submit(service, admitted, request);
    } catch (RuntimeException e) {
      log.error("CompletionService.submit failed", e);
      admitted.abandon(); // frees the seat unless the core already took the ticket over
      started.abandon();
      responder = null;
      rejectAndClose(Responses.internalError());
    }
  }

  /** The body is refused (400, 413): the core journals it as invalid; answer and close. */
  private void refuseBodyAndClose(RouterError error) {
    AdmissionTicket.Admitted admitted = takeTicket();
    body = null;
    admitted.invalid(error);
    rejectAndClose(Responses.error(error, admitted.requestId()));
  }

  /** Why the operator routes are closed to this request, or null when they are open to it. */
  private @Nullable RouterError operatorRefusal(HttpRequest request) {
    return service.authenticator().authenticateOperator(authorization(request)).refusal();
  }

  /** Every value of the request's Authorization header: the authenticator refuses more than one. */
  private static List<String> authorization(HttpRequest request) {
    return request.headers().getAll(HttpHeaderNames.AUTHORIZATION);
  }

  /** A 401 carries the challenge naming the scheme to use (RFC 9110, RFC 6750); a 400 does not. */
  private static FullHttpResponse challenge(FullHttpResponse response) {
    if (response.status().code() == 401) {
      response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, AuthErrors.CHALLENGE);
    }
    return response;
  }

  /** A malformed request line or header block: answer 400 and close. */
  private boolean failed(DecoderResult result) {
    if (!result.isFailure()) {
      return false;
    }
    rejectAndClose(Responses.error(malformed(result), null));
    return true;
  }

  /**
   * The 400 for what the HTTP decoder could not decode (a head or a chunk). Its words come from
   * the innermost cause: a wrapping exception's message is its cause's {@code toString()}, which
   * would show the client a Java class name.
   */
  private static RouterError malformed(DecoderResult result) {
    String detail = null;
    for (Throwable c = result.cause(); c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getMessage() != null && !c.getMessage().isBlank()) {
        detail = c.getMessage();
      }
    }
    return Responses.malformedHttp(detail == null ? "undecodable" : detail);
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

  /** A refused connection: see {@link LingeringClose}. */
  private void lingerAfter(ChannelFuture lastWrite) {
    state = State.CLOSING;
    body = null;
    backlog.releaseAll();
    LingeringClose.after(lastWrite, scheduler());
  }

  private void closeAfter(ChannelFuture lastWrite) {
    state = State.CLOSING;
    body = null;
    backlog.releaseAll();
    lastWrite.addListener(ChannelFutureListener.CLOSE);
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

  /** The body did not arrive in time: 408, the core journals it expired, and the connection closes. */
  private void bodyTimedOut() {
    if (state != State.READING_BODY || upload == null) {
      return;
    }
    AdmissionTicket.Admitted admitted = takeTicket();
    body = null;
    RouterError error = ClientErrors.bodyTimeout(admitted.deadline().atNanos() - admitted.arrival().arrivalNanos());
    admitted.expired(error);
    rejectAndClose(Responses.error(error, admitted.requestId()));
  }

  /** The admitted request leaves the connection's hands (submitted or ended). */
  private AdmissionTicket.Admitted takeTicket() {
    AdmittedUpload u = upload;
    if (u == null) {
      throw new IllegalStateException("no admitted request in progress");
    }
    upload = null;
    return u.take();
  }

  private RequestBodyBuffer body() {
    RequestBodyBuffer b = body;
    if (b == null) {
      throw new IllegalStateException("no request body in progress");
    }
    return b;
  }
}
