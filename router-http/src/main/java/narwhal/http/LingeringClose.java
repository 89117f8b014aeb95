package narwhal.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import java.util.concurrent.TimeUnit;
import narwhal.time.Scheduler;
import narwhal.time.Timer;

/**
 * Ends a connection refused while its client may still be sending the body (413, a malformed
 * request). Closing at once over unread input makes the kernel reset the connection, so the
 * client's write fails before it reads the answer: Node's fetch, under the OpenAI SDK, then
 * reports EPIPE instead of the 413. So, as web servers do: the answer is followed by a FIN, input
 * is read and dropped (the caller drops what it reads), and the channel closes when the client
 * closes, at most {@link #LINGER_MS} later.
 */
final class LingeringClose {

  /** How long a refused connection goes on reading what its client still sends. */
  static final long LINGER_MS = 2_000;

  private LingeringClose() {}

  static void after(ChannelFuture lastWrite, Scheduler loop) {
    Channel channel = lastWrite.channel();
    if (!(channel instanceof DuplexChannel duplex)) {
      lastWrite.addListener(ChannelFutureListener.CLOSE);
      return;
    }
    channel.config().setAutoRead(true); // a pipelining backlog may have paused reading
    Timer lingering = loop.schedule(channel::close, LINGER_MS, TimeUnit.MILLISECONDS);
    channel.closeFuture().addListener(closed -> lingering.cancel());
    lastWrite.addListener(
        (ChannelFutureListener) written -> {
          if (!written.isSuccess()) {
            channel.close();
            return;
          }
          SslHandler tls = channel.pipeline().get(SslHandler.class);
          if (tls == null) {
            duplex.shutdownOutput();
          } else {
            // TLS ends its half with close_notify first, so the client reads a clean end, not a truncation.
            tls.closeOutbound().addListener(notified -> duplex.shutdownOutput());
          }
        });
  }
}
