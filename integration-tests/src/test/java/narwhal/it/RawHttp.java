package narwhal.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One HTTP/1.1 exchange over a plain socket, for what an HTTP client library hides: sending the
 * headers of a request and reading the answer before any of its body is sent.
 */
final class RawHttp implements AutoCloseable {

  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  RawHttp(int port) {
    try {
      socket = new Socket("127.0.0.1", port);
      socket.setSoTimeout(10_000);
      out = socket.getOutputStream();
      in = socket.getInputStream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends a POST's request line and headers only, announcing {@code contentLength} body bytes. */
  void sendHeaders(String path, long contentLength) {
    write("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + contentLength + "\r\n\r\n");
  }

  void write(String text) {
    try {
      out.write(text.getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one response with a Content-Length body: the head and the body as text. */
  Response readResponse() {
    try {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("connection closed in the response head: " + head);
        }
        head.write(b);
      }
      String headText = head.toString(StandardCharsets.ISO_8859_1);
      int length = 0;
      for (String line : headText.split("\r\n")) {
        if (line.toLowerCase().startsWith("content-length:")) {
          length = Integer.parseInt(line.substring("content-length:".length()).trim());
        }
      }
      byte[] body = in.readNBytes(length);
      int status = Integer.parseInt(headText.substring(9, 12));
      return new Response(status, headText, new String(body, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  record Response(int status, String head, String body) {
    String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }
  }
}
