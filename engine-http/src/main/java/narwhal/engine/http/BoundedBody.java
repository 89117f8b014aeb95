package narwhal.engine.http;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A response body copied out of Netty buffers, up to a limit.
 *
 * <p>Copying (instead of composing the buffers) means nothing here is reference counted: the
 * caller releases each piece right after {@link #append}, whatever happens next. Nothing past the
 * limit is ever stored.
 */
final class BoundedBody {

  private static final byte[] EMPTY = new byte[0];
  private static final int FIRST_CAPACITY = 1024;

  private final int maxBytes;
  private byte[] bytes = EMPTY;
  private int length;

  BoundedBody(int maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * Copies the readable bytes of {@code piece} (its indices are left alone); returns false, copying
   * nothing, when they would take the body past the limit.
   */
  boolean append(ByteBuf piece) {
    int n = piece.readableBytes();
    if (n > maxBytes - length) {
      return false;
    }
    if (length + n > bytes.length) {
      long grown = Math.max(FIRST_CAPACITY, 2L * bytes.length);
      bytes = Arrays.copyOf(bytes, (int) Math.min(maxBytes, Math.max(grown, length + n)));
    }
    piece.getBytes(piece.readerIndex(), bytes, length, n);
    length += n;
    return true;
  }

  String utf8() {
    return new String(bytes, 0, length, StandardCharsets.UTF_8);
  }
}
