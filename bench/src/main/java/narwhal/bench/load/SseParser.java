package narwhal.bench.load;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Incremental Server-Sent Events parser over raw response bytes: feeds arbitrary chunk
 * boundaries, dispatches the joined {@code data:} payload of each event at its blank line.
 *
 * <p>Works on bytes, not strings, so the generator allocates nothing per event in the steady state
 * (the line and data arrays grow once to the largest event). Lines end with LF, CRLF or CR as the
 * SSE grammar allows; fields other than {@code data} and comment lines are ignored. Not
 * thread-safe: one parser per response, used on its connection's event loop.
 */
public final class SseParser {

  /** Receives each event's data; the array is reused after the call returns. */
  public interface Listener {
    void onEvent(byte[] data, int length);
  }

  private static final byte[] DATA = {'d', 'a', 't', 'a'};

  private final Listener listener;
  private byte[] line = new byte[256];
  private int lineLength;
  private byte[] data = new byte[256];
  private int dataLength;
  private boolean hasData;
  private boolean afterCr;
  private byte[] scratch = new byte[0];

  public SseParser(Listener listener) {
    this.listener = listener;
  }

  /** Parses the readable bytes of {@code chunk} without consuming or releasing it. */
  public void feed(ByteBuf chunk) {
    int length = chunk.readableBytes();
    if (chunk.hasArray()) {
      feed(chunk.array(), chunk.arrayOffset() + chunk.readerIndex(), length);
    } else {
      if (scratch.length < length) {
        scratch = new byte[Math.max(length, 4096)];
      }
      chunk.getBytes(chunk.readerIndex(), scratch, 0, length);
      feed(scratch, 0, length);
    }
  }

  public void feed(byte[] bytes, int offset, int length) {
    int end = offset + length;
    for (int i = offset; i < end; i++) {
      byte b = bytes[i];
      if (b == '\n') {
        if (afterCr) {
          afterCr = false; // the LF of a CRLF: the line already ended at the CR
          continue;
        }
        endLine();
      } else if (b == '\r') {
        afterCr = true;
        endLine();
      } else {
        afterCr = false;
        if (lineLength == line.length) {
          line = Arrays.copyOf(line, line.length * 2);
        }
        line[lineLength++] = b;
      }
    }
  }

  private void endLine() {
    if (lineLength == 0) {
      if (hasData) {
        listener.onEvent(data, dataLength);
      }
      hasData = false;
      dataLength = 0;
      return;
    }
    if (isDataField()) {
      int start = 4;
      if (lineLength > 4 && line[4] == ':') {
        start = 5;
        if (lineLength > 5 && line[5] == ' ') {
          start = 6;
        }
      }
      if (hasData) {
        append((byte) '\n');
      }
      hasData = true;
      for (int i = start; i < lineLength; i++) {
        append(line[i]);
      }
    }
    lineLength = 0;
  }

  private boolean isDataField() {
    if (lineLength < 4 || (lineLength > 4 && line[4] != ':')) {
      return false;
    }
    for (int i = 0; i < 4; i++) {
      if (line[i] != DATA[i]) {
        return false;
      }
    }
    return true;
  }

  private void append(byte b) {
    if (dataLength == data.length) {
      data = Arrays.copyOf(data, data.length * 2);
    }
    data[dataLength++] = b;
  }
}
