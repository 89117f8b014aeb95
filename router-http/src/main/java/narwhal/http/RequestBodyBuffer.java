package narwhal.http;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Collects a request body up to a limit, copying each piece out of Netty's buffers so the caller
 * can release them at once. Refuses to grow past the limit: a chunked body that runs over is
 * detected on the piece that crosses it, and nothing beyond the limit is ever held.
 */
final class RequestBodyBuffer {

  private final long limit;
  private byte[] bytes;
  private int size;

  /** @param expectedLength the Content-Length, or -1 when the body is chunked */
  RequestBodyBuffer(long limit, long expectedLength) {
    this.limit = limit;
    this.bytes = new byte[(int) Math.min(limit, Math.max(expectedLength, 256))];
  }

  /** Appends {@code piece}; returns false, holding nothing more, when the limit would be passed. */
  boolean append(ByteBuf piece) {
    int n = piece.readableBytes();
    if (size + (long) n > limit) {
      return false;
    }
    if (size + n > bytes.length) {
      bytes = Arrays.copyOf(bytes, (int) Math.min(limit, Math.max(size + n, 2L * bytes.length)));
    }
    piece.getBytes(piece.readerIndex(), bytes, size, n);
    size += n;
    return true;
  }

  byte[] toByteArray() {
    return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
  }
}
