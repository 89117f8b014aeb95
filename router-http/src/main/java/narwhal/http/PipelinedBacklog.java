package narwhal.http;

import io.netty.handler.codec.http.HttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * What a client pipelined behind the request being served: decoded heads and body parts, held in
 * order until the current response is written. It owns what it holds (released if the connection
 * ends first) and keeps an estimate of the memory that is, so the connection can stop reading
 * past a bound instead of buffering without limit.
 */
final class PipelinedBacklog {

  /** The flat cost counted for a head: its strings and headers, roughly. */
  private static final long HEAD_BYTES = 1024;

  private final ArrayDeque<Object> held = new ArrayDeque<>();
  private long bytes;

  /** Holds {@code msg} (taking ownership); true when the backlog now exceeds {@code limitBytes}. */
  boolean hold(Object msg, long limitBytes) {
    held.add(msg);
    bytes += sizeOf(msg);
    return bytes > limitBytes;
  }

  boolean isEmpty() {
    return held.isEmpty();
  }

  /** The oldest held part, ownership passing to the caller; null when empty. */
  @Nullable Object poll() {
    Object msg = held.poll();
    if (msg != null) {
      bytes -= sizeOf(msg);
    }
    return msg;
  }

  /** Releases everything still held. */
  void releaseAll() {
    Object msg;
    while ((msg = poll()) != null) {
      ReferenceCountUtil.release(msg);
    }
  }

  private static long sizeOf(Object msg) {
    return msg instanceof HttpContent content ? content.content().readableBytes() : HEAD_BYTES;
  }
}
