package narwhal.engine.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A server that answers each connection's first request with fixed bytes and then closes: for
 * responses no well-behaved HTTP server would send (malformed, truncated, delimited by close).
 */
final class RawServer implements AutoCloseable {

  private final ServerSocket socket;
  private final Thread acceptor;

  RawServer(String response) throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    byte[] bytes = response.getBytes(StandardCharsets.UTF_8);
    acceptor =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try (Socket client = socket.accept()) {
                  readRequest(client.getInputStream());
                  client.getOutputStream().write(bytes);
                  client.getOutputStream().flush();
                } catch (IOException e) {
                  // closed by close(), or the client went away: either way, next connection
                }
              }
            },
            "raw-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort());
  }

  /** Reads one request: the head up to the blank line, then Content-Length bytes of body. */
  private static void readRequest(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        return;
      }
      head.write(b);
    }
    int length = 0;
    for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    in.readNBytes(length);
  }

  @Override
  public void close() throws IOException {
    socket.close();
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
