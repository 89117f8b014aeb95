package narwhal.engine.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * The last handler of every engine connection: hands response parts to the exchange currently
 * using the connection.
 *
 * <p>A pooled connection outlives its exchanges, so the exchange is bound on acquire and unbound
 * when it ends. Anything that arrives while no exchange is bound (the engine talking out of turn,
 * or parts already decoded when an exchange was cancelled) means the connection cannot be trusted
 * for reuse: it is released and the connection closed.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

  private HttpExchange current;

  void bind(HttpExchange exchange) {
    current = exchange;
  }

  void unbind(HttpExchange exchange) {
    if (current == exchange) {
      current = null;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    HttpExchange exchange = current;
    if (exchange == null) {
      ReferenceCountUtil.release(msg);
      ctx.close();
      return;
    }
    exchange.onResponsePart(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    HttpExchange exchange = current;
    if (exchange != null) {
      exchange.onConnectionClosed();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    HttpExchange exchange = current;
    if (exchange != null) {
      exchange.onConnectionError(cause);
    } else {
      ctx.close();
    }
  }
}
