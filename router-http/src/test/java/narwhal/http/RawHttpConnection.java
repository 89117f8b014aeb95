package narwhal.http;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A plain-socket HTTP/1.1 client that shows exactly what went over the wire: status, headers,
 * each chunk as sent, and whether the server closed the connection.
 */
final class RawHttpConnection implements AutoCloseable {

  final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawHttpConnection(int port) throws IOException {
    this(port, 0);
  }

  /** @param receiveBuffer the socket receive buffer (0: system default), small to stall reads */
  RawHttpConnection(int port, int receiveBuffer) throws IOException {
    socket = new Socket();
    if (receiveBuffer > 0) {
      socket.setReceiveBufferSize(receiveBuffer);
    }
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(10_000);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  void send(String text) throws IOException {
    send(text.getBytes(StandardCharsets.UTF_8));
  }

  void send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Sends a POST with a Content-Length body. */
  void post(String path, String body, String... extraHeaders) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    StringBuilder head = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: test\r\n");
    head.append("Content-Type: application/json\r\nContent-Length: ").append(bytes.length).append("\r\n");
    for (String header : extraHeaders) {
      head.append(header).append("\r\n");
    }
    send(head.append("\r\n").toString());
    send(bytes);
  }

  /** Reads an interim {@code 100 Continue} response (status line and headers). */
  Head readHead100() throws IOException {
    return readHeadLines();
  }

  /** Reads the status line and headers of the next final response. */
  Head readHead() throws IOException {
    Head head = readHeadLines();
    return head.status == 100 ? readHeadLines() : head;
  }

  private Head readHeadLines() throws IOException {
    String status = readLine();
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
    }
    return new Head(Integer.parseInt(status.split(" ")[1]), headers);
  }

  /** The next chunk's data, or null at the terminating zero-size chunk (trailers consumed). */
  byte @Nullable [] readChunk() throws IOException {
    int size = Integer.parseInt(readLine().trim(), 16);
    if (size == 0) {
      readLine();
      return null;
    }
    byte[] data = in.readNBytes(size);
    if (data.length != size) {
      throw new EOFException("chunk cut short");
    }
    readLine();
    return data;
  }

  /** Reads one whole response (chunked or with Content-Length). */
  Response readResponse() throws IOException {
    Head head = readHead();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    List<String> chunks = new ArrayList<>();
    if ("chunked".equalsIgnoreCase(head.headers.get("transfer-encoding"))) {
      for (byte[] chunk = readChunk(); chunk != null; chunk = readChunk()) {
        body.write(chunk);
        chunks.add(new String(chunk, StandardCharsets.UTF_8));
      }
    } else {
      int length = Integer.parseInt(head.headers.getOrDefault("content-length", "0"));
      body.write(in.readNBytes(length));
    }
    return new Response(head.status, head.headers, body.toString(StandardCharsets.UTF_8), chunks);
  }

  /** True when the server closed the connection (EOF) within the socket timeout. */
  boolean serverClosed() throws IOException {
    try {
      return in.read() == -1;
    } catch (java.net.SocketException e) {
      return true; // reset counts as closed
    }
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != '\n') {
      if (c == -1) {
        throw new EOFException("connection closed; read so far: " + line);
      }
      if (c != '\r') {
        line.write(c);
      }
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  record Head(int status, Map<String, String> headers) {}

  record Response(int status, Map<String, String> headers, String body, List<String> chunks) {
    /** The SSE {@code data:} payloads in order. */
    List<String> sseData() {
      List<String> data = new ArrayList<>();
      for (String event : body.split("\n\n")) {
        if (!event.isEmpty()) {
          if (!event.startsWith("data: ")) {
            throw new AssertionError("not an SSE data event: " + event);
          }
          data.add(event.substring("data: ".length()));
        }
      }
      return data;
    }
  }
}
