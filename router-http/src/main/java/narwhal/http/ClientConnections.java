package narwhal.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import narwhal.api.FrontEndMetrics;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The front-end's client connections: how many are open, the cap on them, and the counts of those
 * refused at the cap or closed by a timeout. A connection holds no admission seat until it sends a
 * completion request, so {@code serving.max_connections} does not bound sockets; this does.
 * Shared by every event loop, hence atomic.
 */
final class ClientConnections {

  private static final Logger log = LoggerFactory.getLogger(ClientConnections.class);

  /**
   * The answer on a connection over the cap, written before any request is read. Pre-encoded: the
   * connection gets no HTTP codec, so refusing costs one small write and a close.
   */
  private static final byte[] REFUSAL = refusal();

  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong headerTimeouts = new AtomicLong();
  private final AtomicLong idleTimeouts = new AtomicLong();

  ClientConnections(int max, @Nullable FrontEndMetrics metrics) {
    this.max = max;
    if (metrics != null) {
      metrics.registerGauge("narwhal_client_connections", "Open client HTTP connections", open::get);
      metrics.registerGauge("narwhal_client_connections_limit", "serving.max_client_connections", () -> max);
      metrics.registerCounter("narwhal_client_connections_refused_total",
          "Client HTTP connections answered 503 and closed at accept: serving.max_client_connections were open",
          refused::get);
      String timedOut = "Client HTTP connections closed by a timeout: header (serving.header_timeout_s) "
          + "or idle (serving.idle_timeout_s)";
      metrics.registerCounter("narwhal_client_connections_timed_out_total", timedOut, headerTimeouts::get,
          "timeout", "header");
      metrics.registerCounter("narwhal_client_connections_timed_out_total", timedOut, idleTimeouts::get,
          "timeout", "idle");
    }
  }

  /**
   * Counts a newly accepted connection in, or, at the cap, answers it 503 and closes it.
   *
   * @return false when the connection was refused (the caller sets nothing else up on it)
   */
  boolean admit(Channel ch) {
    if (open.incrementAndGet() > max) {
      open.decrementAndGet();
      long refusals = refused.incrementAndGet();
      if (refusals % 1000 == 1) {
        // Once per thousand: a flood must not flood the log too.
        log.warn("client connection refused: serving.max_client_connections ({}) are open; {} refused so far",
            max, refusals);
      }
      ch.writeAndFlush(Unpooled.wrappedBuffer(REFUSAL)).addListener(ChannelFutureListener.CLOSE);
      return false;
    }
    ch.closeFuture().addListener(closed -> open.decrementAndGet());
    return true;
  }

  void headerTimedOut() {
    headerTimeouts.incrementAndGet();
  }

  void idleTimedOut() {
    idleTimeouts.incrementAndGet();
  }

  int open() {
    return open.get();
  }

  long refused() {
    return refused.get();
  }

  long headerTimeouts() {
    return headerTimeouts.get();
  }

  long idleTimeouts() {
    return idleTimeouts.get();
  }

  private static byte[] refusal() {
    String body = "{\"error\":{\"message\":\"Too many open connections to this router "
        + "(serving.max_client_connections); retry shortly or reuse a connection.\","
        + "\"type\":\"server_overloaded_error\",\"param\":null,\"code\":\"too_many_connections\"}}";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    String head = "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        + "content-length: " + bytes.length + "\r\nretry-after: 1\r\nconnection: close\r\n\r\n";
    return (head + body).getBytes(StandardCharsets.UTF_8);
  }
}
