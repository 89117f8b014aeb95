package narwhal.bench.load;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.jspecify.annotations.Nullable;

/**
 * The last handler of a pooled client connection: hands the response of the one request in flight
 * to its {@link ResponseHandler}, then gives the connection back to its pool when the response
 * allows keep-alive. Runs on the connection's event loop only.
 *
 * <p>A close-delimited body (no {@code Content-Length}, no chunking, the server closes after the
 * last byte) ends cleanly: when the connection closes, Netty's decoder emits the response's
 * {@link LastHttpContent} before {@link #channelInactive} runs, so the response completes (not
 * an error) and, being {@code Connection: close} or already closed, the connection is never
 * pooled again.
 */
final class ClientHandler extends ChannelInboundHandlerAdapter {

  private final LoopClient owner;
  private final HttpTarget target;
  private @Nullable ResponseHandler current;
  private boolean keepAlive;

  ClientHandler(LoopClient owner, HttpTarget target) {
    this.owner = owner;
    this.target = target;
  }

  void begin(ResponseHandler handler) {
    current = handler;
    keepAlive = true;
  }

  boolean busy() {
    return current != null;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      ResponseHandler handler = current;
      if (handler == null) {
        return; // bytes after an abandoned request: the connection is being closed
      }
      if (msg instanceof HttpResponse response) {
        keepAlive = HttpUtil.isKeepAlive(response);
        if (response.decoderResult().isFailure()) {
          fail(ctx, "bad_response", String.valueOf(response.decoderResult().cause()));
          return;
        }
        handler.onHeaders(response.status().code());
      }
      if (msg instanceof HttpContent content && current == handler) {
        if (content.content().isReadable()) {
          handler.onContent(content.content());
        }
        if (msg instanceof LastHttpContent && current == handler) {
          current = null;
          handler.onEnd();
          if (keepAlive && ctx.channel().isActive()) {
            owner.release(target, ctx.channel());
          } else {
            ctx.close();
          }
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  /** Abandons the request in flight (timeout, failed check): the connection cannot be reused. */
  void abandon(ChannelHandlerContext ctx) {
    current = null;
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    owner.closed(target, ctx.channel());
    ResponseHandler handler = current;
    if (handler != null) {
      current = null;
      handler.onFailure("connection_closed", "the server closed the connection mid-response");
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    fail(ctx, "io_error", String.valueOf(cause));
  }

  private void fail(ChannelHandlerContext ctx, String kind, String detail) {
    ResponseHandler handler = current;
    current = null;
    ctx.close();
    if (handler != null) {
      handler.onFailure(kind, detail);
    }
  }
}
