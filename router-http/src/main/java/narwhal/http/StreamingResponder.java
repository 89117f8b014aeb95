package narwhal.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * A {@code stream: true} request relayed as Server-Sent Events.
 *
 * <p>Commit rule: nothing is written before {@code onStart}, so a failure before the first token
 * is an ordinary HTTP error with its own status. After the commit the stream ends with
 * {@code data: [DONE]} on success, or with exactly one {@code data: {"error":...}} event (its
 * {@code code} the status as an integer, no {@code [DONE]} after it), so no client mistakes a
 * failed stream for a complete one. The chunked body is then terminated properly and the
 * connection stays alive: closing it would race a client that has already returned the socket to
 * its keep-alive pool after reading the last chunk, failing that client's next request.
 *
 * <p>HTTP/1.0 has no chunked encoding, so for an HTTP/1.0 client the stream is close-delimited
 * instead: no {@code Content-Length}, {@code Connection: close}, the same events, and the
 * connection closes after the terminal one, which is how the client sees the body end.
 */
final class StreamingResponder extends CompletionResponder {

  private final boolean keepTokenIds;
  /** Close-delimited (HTTP/1.0) rather than chunked. */
  private final boolean closeDelimited;
  private final Runnable flush = this::flushNow;
  /** The channel's allocator, looked up once rather than through the context per token. */
  private final ByteBufAllocator alloc;
  private @Nullable SseChunkWriter writer;
  private boolean flushPending;
  private @Nullable ChannelHandlerContext codec;

  StreamingResponder(
      ChannelHandlerContext ctx,
      Route route,
      boolean keepAlive,
      boolean closeDelimited,
      boolean keepTokenIds,
      Listener listener) {
    super(ctx, route, keepAlive && !closeDelimited, listener);
    this.closeDelimited = closeDelimited;
    this.keepTokenIds = keepTokenIds;
    this.alloc = ctx.alloc();
  }

  /**
   * The HTTP codec's context: writes from it reach the socket without being encoded again, and a
   * flush from it skips the handlers after the codec, none of which acts on a flush (the
   * connection timeouts watch writes; TLS, before the codec, still sees every flush).
   */
  private ChannelHandlerContext codec() {
    if (codec == null) {
      ChannelHandlerContext found = ctx.pipeline().context(HttpServerCodec.class);
      if (found == null) {
        // The pipeline is already taken down (the client left before a scheduled flush ran):
        // the responder's own context still forwards to the socket, which discards the bytes.
        return ctx;
      }
      codec = found;
    }
    return codec;
  }

  @Override
  public boolean isWritable() {
    return ctx.channel().isWritable();
  }

  @Override
  protected void started(ResponseStart start) {
    if (writer != null) {
      return;
    }
    writer = new SseChunkWriter(route, start, keepTokenIds);
    HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    head.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_EVENT_STREAM)
        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE)
        .set(Responses.REQUEST_ID_HEADER, requestId() != null ? requestId() : start.requestId());
    // Without chunking the encoder passes the body through as it is, until the connection closes.
    HttpUtil.setTransferEncodingChunked(head, !closeDelimited);
    HttpUtil.setKeepAlive(head, keepAlive());
    // The first token follows at once (the core commits on it): both leave in one flush.
    ctx.write(head);
    scheduleFlush();
  }

  @Override
  protected void event(ChunkView chunk) {
    if (writer == null) {
      // The core commits before relaying; an event ahead of onStart has nowhere to go.
      return;
    }
    ByteBuf frame = writer.frame(chunk, alloc);
    ByteBuf httpChunk = closeDelimited ? frame : SseChunkWriter.toHttpChunk(frame, alloc);
    // Unflushed bytes count against the high-water mark. Flush them before they could cross it,
    // so "not writable" (which pauses the engine stream) still means the client is not reading.
    if (flushPending && httpChunk.readableBytes() >= ctx.channel().bytesBeforeUnwritable()) {
      codec().flush();
    }
    // Already a whole HTTP chunk (or, close-delimited, the raw frame): written from the codec's own context, so it goes straight to the
    // socket without passing the encoder (which would add a size line and a CRLF as two more
    // buffers per token). The head before it and the last chunk after it do pass the encoder,
    // which keeps its chunked state from one to the other. A void promise: a failed write fails
    // the connection through the pipeline, and no one waits on a single token's write.
    codec().write(httpChunk, ctx.voidPromise());
    if (ctx.channel().isWritable()) {
      scheduleFlush();
    } else {
      codec().flush();
    }
  }

  /**
   * One flush per event-loop pass, not per event: the events one engine read carries (and
   * anything else this pass relays to the client) leave in one write. The task runs right after
   * the pass's I/O, so a lone token is not held back.
   */
  private void scheduleFlush() {
    if (!flushPending) {
      flushPending = true;
      ctx.executor().execute(flush);
    }
  }

  private void flushNow() {
    flushPending = false;
    codec().flush();
  }

  @Override
  protected void completed() {
    if (writer == null) {
      respondNoTokenArrived();
      return;
    }
    DefaultLastHttpContent done =
        new DefaultLastHttpContent(Unpooled.wrappedBuffer(SseChunkWriter.done()));
    finish(ctx.writeAndFlush(done), closeDelimited);
  }

  @Override
  protected void failed(RouterError error) {
    if (writer == null) {
      respond(Responses.error(error, requestId()));
      return;
    }
    byte[] frame = SseChunkWriter.frame(Responses.envelope(error, true));
    finish(ctx.writeAndFlush(new DefaultLastHttpContent(Unpooled.wrappedBuffer(frame))), closeDelimited);
  }

  /** vLLM's {@code return_token_ids}: the client asked for each chunk's token ids, kept in its frames. */
  static boolean wantsTokenIds(CompletionRequest request) {
    return "true".equals(request.getExtraFieldsMap().get("return_token_ids"));
  }
}
