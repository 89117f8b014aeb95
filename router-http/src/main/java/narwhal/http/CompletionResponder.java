package narwhal.http;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import narwhal.api.AdmissionTicket;
import narwhal.api.ClientSink;
import narwhal.api.CompletionService;
import narwhal.api.ResponseStart;
import narwhal.api.ClientErrors;
import narwhal.api.RouterError;
import narwhal.api.SinkGuard;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/**
 * One submitted completion, from {@code submit} to the last byte of its response: the
 * {@link ClientSink} the core delivers to. Subclasses decide how the outcome is written
 * (SSE relay or one assembled JSON body); this class enforces the sink contract around them
 * ({@link SinkGuard}, shared with the gRPC front-end).
 *
 * <ul>
 *   <li>Every call must arrive on the channel's event loop (asserted).
 *   <li>Calls made while {@code submit} is still running are replayed once it returns, so the
 *       request handle, and with it the {@code x-request-id} header, is always known.
 *   <li>Nothing is delivered after the outcome is written or the client has gone.
 *   <li>The handle is cancelled at most once: when the client disconnects with the outcome still
 *       open, or when the front-end gives up on the response itself (assembly failure).
 * </ul>
 */
abstract class CompletionResponder implements ClientSink {

  /** The connection, told when the response is fully written. */
  interface Listener {
    /**
     * @param lastWrite the future of the response's last write
     * @param close true when the connection must close once that write completes
     */
    void responseDone(ChannelFuture lastWrite, boolean close);
  }

  protected final ChannelHandlerContext ctx;
  protected final Route route;
  private final Listener listener;
  private final boolean keepAlive;
  private final SinkGuard guard = new SinkGuard();

  CompletionResponder(ChannelHandlerContext ctx, Route route, boolean keepAlive, Listener listener) {
    this.ctx = ctx;
    this.route = route;
    this.keepAlive = keepAlive;
    this.listener = listener;
  }

  /** Hands the request to the core; outcome callbacks may start during this call. */
  final void submit(CompletionService service, AdmissionTicket ticket, CompletionRequest request) {
    guard.submit(() -> service.submit(ticket, request, this));
  }

  /** The client went away: cancel the request unless its outcome was already written. */
  final void clientGone() {
    if (!guard.ended()) {
      guard.end();
      cancelHandle();
    }
  }

  /** The channel became writable again after {@link #isWritable()} returned false. */
  final void channelWritable() {
    guard.clientWritable();
  }

  /** Stops delivery without writing anything (the front-end already answered). */
  final void abandon() {
    guard.end();
  }

  @Override
  public final void onStart(ResponseStart start) {
    if (accept(() -> onStart(start))) {
      started(start);
    }
  }

  @Override
  public final void onEvent(StreamEvent event) {
    if (accept(() -> onEvent(event))) {
      ChunkView chunk = ChunkView.of(event);
      if (chunk != null) {
        event(chunk);
      }
    }
  }

  @Override
  public final void onComplete() {
    if (accept(this::onComplete)) {
      completed();
    }
  }

  @Override
  public final void onError(RouterError error) {
    if (accept(() -> onError(error))) {
      failed(error);
    }
  }

  protected abstract void started(ResponseStart start);

  protected abstract void event(ChunkView chunk);

  protected abstract void completed();

  protected abstract void failed(RouterError error);

  /**
   * The core completes a stream only after a token started it; should that contract ever be
   * broken, answer as the spec does for a stream that ended before any token.
   */
  protected final void respondNoTokenArrived() {
    respond(Responses.error(
        ClientErrors.noTokenArrived(),
        requestId()));
  }

  /** The router's id for the request: the {@code x-request-id} response header. */
  protected final @Nullable String requestId() {
    return guard.requestId();
  }

  protected final boolean keepAlive() {
    return keepAlive;
  }

  /** Writes a complete response as the outcome and ends the exchange. */
  protected final void respond(FullHttpResponse response) {
    HttpUtil.setKeepAlive(response, keepAlive);
    finish(ctx.writeAndFlush(response), false);
  }

  /** The outcome is written (up to {@code lastWrite}); nothing more will be delivered. */
  protected final void finish(ChannelFuture lastWrite, boolean close) {
    guard.end();
    listener.responseDone(lastWrite, close || !keepAlive);
  }

  /** The front-end abandons a response the core is still producing. */
  protected final void cancelHandle() {
    guard.cancel();
  }

  /**
   * The front-end answers the client with {@code error} itself (e.g. a response over the size
   * limit): the core stops the request and journals it as failed with {@code reason}.
   */
  protected final void abortHandle(RouterError error, String reason) {
    guard.abort(error, reason);
  }

  /**
   * The front-end gives up on the response and answers the client with {@code error} itself. The
   * core is told first: it frees the request's seat before the client hears anything, so a request
   * the client pipelined behind this one (served as soon as this answer is written) finds the seat
   * free instead of a spurious 429. The core sends the error back to this sink when the request was
   * still running, which answers it; otherwise it is answered here.
   */
  protected final void abortAndRespond(RouterError error, String reason) {
    abortHandle(error, reason);
    if (!guard.ended()) {
      respond(Responses.error(error, requestId()));
    }
  }

  /** True when the call should run now; defers it while {@code submit} is on the stack. */
  private boolean accept(Runnable replay) {
    assert ctx.executor().inEventLoop() : "ClientSink called off the channel's event loop";
    return guard.accept(replay);
  }
}
