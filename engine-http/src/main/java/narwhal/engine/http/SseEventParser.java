package narwhal.engine.http;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Incremental parser for a {@code text/event-stream} body that yields each event's data.
 *
 * <p>Bytes arrive in arbitrary pieces: a piece may end anywhere, inside a UTF-8 character or
 * between the {@code \r} and {@code \n} of one line break. Lines end with {@code \n}, {@code \r\n}
 * or {@code \r}. Per line: {@code data:} appends its value (one optional space after the colon is
 * dropped; {@code data} without a colon appends an empty value); a line starting with {@code :} is
 * a comment; {@code event}, {@code id}, {@code retry} and unknown fields are ignored. A blank line
 * dispatches the event: its data values joined with {@code '\n'} go to the consumer, unless the
 * event had no data or the joined data is empty. A partial event at the end of the stream is never
 * dispatched; a leading UTF-8 byte order mark is skipped.
 *
 * <p>Size bound: the dispatched data may be at most {@code maxEventBytes} UTF-8 bytes, and no line
 * may be longer than that plus the {@code "data: "} prefix; beyond either, {@link #feed} throws
 * {@link EventTooLargeException} without buffering past the limit, and the parser is spent.
 *
 * <p>Not thread-safe: one parser per response, fed from one thread. {@link #feed} copies what it
 * needs and never retains or releases the buffer it is given.
 */
public final class SseEventParser {

  /** An event (or one of its lines) exceeded the parser's size bound. */
  public static final class EventTooLargeException extends Exception {
    private static final long serialVersionUID = 1L;

    EventTooLargeException(String message) {
      super(message);
    }
  }

  private static final byte CR = '\r';
  private static final byte LF = '\n';
  private static final int DATA_PREFIX_BYTES = "data: ".length();
  private static final int INITIAL_LINE_CAPACITY = 128;
  /** A line buffer that grew past this for one huge event is dropped afterwards, not kept forever. */
  private static final int RETAINED_LINE_CAPACITY = 64 * 1024;

  private final int maxEventBytes;
  private final int maxLineBytes;
  private final Consumer<String> onEvent;

  private byte[] line = new byte[INITIAL_LINE_CAPACITY];
  private int lineLength;
  /** The previous byte was a CR, so an LF right after it ends no second line. */
  private boolean afterCr;
  private boolean atStreamStart = true;
  private final StringBuilder data = new StringBuilder();
  /** The event's data while it has exactly one line; then {@link #data} holds nothing. */
  private @Nullable String firstData;
  private boolean eventHasData;
  private long eventDataBytes;
  private String tooLarge;

  /**
   * @param maxEventBytes the largest event data accepted, in UTF-8 bytes
   * @param onEvent receives each dispatched event's data, synchronously from {@link #feed}
   */
  public SseEventParser(int maxEventBytes, Consumer<String> onEvent) {
    if (maxEventBytes < 0) {
      throw new IllegalArgumentException("maxEventBytes must not be negative: " + maxEventBytes);
    }
    this.maxEventBytes = maxEventBytes;
    this.maxLineBytes = (int) Math.min(Integer.MAX_VALUE - 8L, (long) maxEventBytes + DATA_PREFIX_BYTES);
    this.onEvent = Objects.requireNonNull(onEvent, "onEvent");
  }

  /**
   * Parses the readable bytes of {@code bytes} (its indices are left as they are) and dispatches
   * every event they complete. An exception thrown by the consumer propagates and leaves the rest
   * of the piece unparsed.
   *
   * @throws EventTooLargeException when an event or line exceeds the size bound
   * @throws IllegalStateException when the parser already failed
   */
  public void feed(ByteBuf bytes) throws EventTooLargeException {
    if (tooLarge != null) {
      throw new IllegalStateException("parser already failed: " + tooLarge);
    }
    // Whole runs of line content are found with ByteBuf.indexOf (which scans several bytes per
    // step) and copied at once: a token's event is a few hundred bytes, and looking at them one
    // at a time was the parser's whole cost.
    int at = bytes.readerIndex();
    int end = bytes.writerIndex();
    while (at < end) {
      if (afterCr) {
        afterCr = false;
        if (bytes.getByte(at) == LF) {
          at++;
          continue; // the LF of a CRLF ends no second line
        }
      }
      int eol = lineEnd(bytes, at, end);
      if (!appendToLine(bytes, at, (eol < 0 ? end : eol) - at)) {
        throw new EventTooLargeException(tooLarge);
      }
      if (eol < 0) {
        return;
      }
      afterCr = bytes.getByte(eol) == CR;
      boolean fits = endLine();
      if (!fits) {
        throw new EventTooLargeException(tooLarge);
      }
      at = eol + 1;
    }
  }

  /** The index of the first CR or LF in {@code [from, to)}, or -1. */
  private static int lineEnd(ByteBuf bytes, int from, int to) {
    int lf = bytes.indexOf(from, to, LF);
    // A CR ends a line too (alone or before an LF); engines rarely send one, so look for it only
    // in front of the LF found (or in the whole rest when there is none).
    int cr = bytes.indexOf(from, lf < 0 ? to : lf, CR);
    return cr >= 0 ? cr : lf;
  }

  /** Appends line content; false (and the parser is spent) when the line would grow too long. */
  private boolean appendToLine(ByteBuf bytes, int from, int count) {
    if (count == 0) {
      return true;
    }
    if (count > maxLineBytes - lineLength) {
      tooLarge = "SSE line longer than " + maxLineBytes + " bytes";
      return false;
    }
    int needed = lineLength + count;
    if (needed > line.length) {
      line = Arrays.copyOf(line, (int) Math.min(maxLineBytes, Math.max(needed, 2L * line.length)));
    }
    bytes.getBytes(from, line, lineLength, count);
    lineLength = needed;
    return true;
  }

  private boolean endLine() {
    int start = 0;
    if (atStreamStart) {
      atStreamStart = false;
      if (startsWithByteOrderMark()) {
        start = 3;
      }
    }
    int length = lineLength;
    lineLength = 0;
    if (length == start) {
      dispatch();
      return true;
    }
    if (line[start] == ':') {
      return true; // comment
    }
    int colon = indexOf((byte) ':', start, length);
    int fieldEnd = colon < 0 ? length : colon;
    if (!isDataField(start, fieldEnd)) {
      return true; // event, id, retry and unknown fields carry nothing the router uses
    }
    int valueStart = colon < 0 ? length : colon + 1;
    if (valueStart < length && line[valueStart] == ' ') {
      valueStart++;
    }
    return appendData(valueStart, length);
  }

  private boolean appendData(int from, int to) {
    long size = eventDataBytes + (eventHasData ? 1 : 0) + (to - from);
    if (size > maxEventBytes) {
      tooLarge = "SSE event larger than " + maxEventBytes + " bytes";
      return false;
    }
    // Lines never split a UTF-8 sequence (CR and LF are never continuation bytes), so decoding
    // line by line is exact.
    String value = new String(line, from, to - from, StandardCharsets.UTF_8);
    if (!eventHasData) {
      // The usual event has one data line: it is dispatched as this very string, without a copy
      // through the builder.
      firstData = value;
    } else {
      if (firstData != null) {
        data.append(firstData);
        firstData = null;
      }
      data.append('\n').append(value);
    }
    eventHasData = true;
    eventDataBytes = size;
    return true;
  }

  private void dispatch() {
    boolean hadData = eventHasData;
    String payload = !hadData ? "" : firstData != null ? firstData : data.toString();
    firstData = null;
    data.setLength(0);
    eventHasData = false;
    eventDataBytes = 0;
    if (line.length > RETAINED_LINE_CAPACITY) {
      line = new byte[INITIAL_LINE_CAPACITY];
    }
    if (data.capacity() > RETAINED_LINE_CAPACITY) {
      data.trimToSize();
    }
    if (!payload.isEmpty()) {
      onEvent.accept(payload);
    }
  }

  private boolean startsWithByteOrderMark() {
    return lineLength >= 3
        && line[0] == (byte) 0xEF
        && line[1] == (byte) 0xBB
        && line[2] == (byte) 0xBF;
  }

  private boolean isDataField(int from, int to) {
    return to - from == 4
        && line[from] == 'd'
        && line[from + 1] == 'a'
        && line[from + 2] == 't'
        && line[from + 3] == 'a';
  }

  private int indexOf(byte b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (line[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
