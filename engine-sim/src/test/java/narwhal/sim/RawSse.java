package narwhal.sim;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A raw-socket HTTP/1.1 client that reads an SSE response event by event, so tests can see timing,
 * silence, resets and the exact bytes — things a high-level client hides.
 */
final class RawSse implements Closeable {
  private final Socket socket;
  private final InputStream in;
  private final StringBuilder pending = new StringBuilder();
  private int status;
  private final Map<String, String> headers = new LinkedHashMap<>();
  private boolean bodyEnded;
  /** No Content-Length and no Transfer-Encoding: the body is everything until the server closes. */
  private boolean closeDelimited;
  /** Raw body bytes not yet decoded (a read may end inside a multi-byte character). */
  private final ByteArrayOutputStream rawPending = new ByteArrayOutputStream();

  private RawSse(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
  }

  /** Connects and sends a POST with a JSON body; does not read anything yet. */
  static RawSse post(int port, String path, String json) throws IOException {
    return post(port, path, json, 0);
  }

  /** As {@link #post(int, String, String)} with a small receive buffer when {@code rcvBuf > 0}. */
  static RawSse post(int port, String path, String json, int rcvBuf) throws IOException {
    Socket socket = new Socket();
    if (rcvBuf > 0) {
      socket.setReceiveBufferSize(rcvBuf);
    }
    socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5000);
    socket.setSoTimeout(5000);
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length
            + "\r\n\r\n";
    OutputStream out = socket.getOutputStream();
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    return new RawSse(socket);
  }

  void timeoutMillis(int millis) throws IOException {
    socket.setSoTimeout(millis);
  }

  /** Reads the status line and headers. */
  RawSse readHead() throws IOException {
    String statusLine = readLine();
    status = Integer.parseInt(statusLine.split(" ")[1]);
    String line;
    while (!(line = readLine()).isEmpty()) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
    }
    closeDelimited = !headers.containsKey("transfer-encoding") && !headers.containsKey("content-length");
    return this;
  }

  int status() {
    return status;
  }

  @Nullable String header(String name) {
    return headers.get(name);
  }

  /**
   * The payload of the next {@code data: } event, or null once the body has ended (the terminal
   * chunk, or the server's close for a close-delimited body). Throws
   * {@link java.net.SocketTimeoutException} when nothing arrives in time.
   */
  @Nullable String nextData() throws IOException {
    String event = nextBlock();
    if (event == null) {
      return null;
    }
    if (!event.startsWith("data: ")) {
      throw new AssertionError("not an SSE data event: " + event);
    }
    return event.substring("data: ".length());
  }

  /**
   * The next blank-line-terminated block exactly as sent (a {@code data: } event or a {@code :}
   * comment), without its terminating {@code \n\n}, or null once the chunked body has ended.
   */
  @Nullable String nextBlock() throws IOException {
    while (true) {
      int end = pending.indexOf("\n\n");
      if (end >= 0) {
        String event = pending.substring(0, end);
        pending.delete(0, end + 2);
        return event;
      }
      if (bodyEnded) {
        if (pending.length() > 0) {
          throw new AssertionError("body ended inside an event: " + pending);
        }
        return null;
      }
      if (closeDelimited) {
        readUntilClose();
      } else {
        readChunk();
      }
    }
  }

  /** The rest of a close-delimited body exactly as sent, once the server has closed. */
  String readToClose() throws IOException {
    if (!closeDelimited) {
      throw new AssertionError("not a close-delimited body: " + headers);
    }
    while (!bodyEnded) {
      readUntilClose();
    }
    String rest = pending.toString();
    pending.setLength(0);
    return rest;
  }

  /** Whatever arrives next of a close-delimited body; end of stream ends the body. */
  private void readUntilClose() throws IOException {
    byte[] buf = new byte[4096];
    int n = in.read(buf);
    if (n < 0) {
      bodyEnded = true;
      n = 0;
    }
    rawPending.write(buf, 0, n);
    byte[] bytes = rawPending.toByteArray();
    int complete = bytes.length;
    if (!bodyEnded) {
      // Decode up to the last line end only: a read may stop inside a multi-byte character.
      while (complete > 0 && bytes[complete - 1] != '\n') {
        complete--;
      }
    }
    pending.append(new String(bytes, 0, complete, StandardCharsets.UTF_8));
    rawPending.reset();
    rawPending.write(bytes, complete, bytes.length - complete);
  }

  private void readChunk() throws IOException {
    String sizeLine = readLine();
    int semicolon = sizeLine.indexOf(';');
    int size = Integer.parseInt(semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon), 16);
    if (size == 0) {
      while (!readLine().isEmpty()) {
        // trailers
      }
      bodyEnded = true;
      return;
    }
    byte[] data = in.readNBytes(size);
    if (data.length < size) {
      throw new EOFException("connection closed inside a chunk");
    }
    pending.append(new String(data, StandardCharsets.UTF_8));
    String crlf = readLine();
    if (!crlf.isEmpty()) {
      throw new AssertionError("chunk not followed by CRLF");
    }
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new EOFException("connection closed");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  /** Reads one byte; -1 means the server closed the connection. */
  int readByte() throws IOException {
    return in.read();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
