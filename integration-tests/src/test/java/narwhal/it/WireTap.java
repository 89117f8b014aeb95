package narwhal.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A relay in front of an engine process that records each {@code POST} it passes on: what the
 * router sent the engine and what the engine answered. Responses stream through chunk by chunk,
 * so an SSE decode leg reaches the router as the engine writes it. Other requests (health checks)
 * are relayed without being recorded.
 */
final class WireTap implements AutoCloseable {

  /** One relayed POST: the router's request and the engine's whole response. */
  record Exchange(String path, String requestId, JsonNode body, int status, String responseBody) {

    JsonNode responseJson() {
      return RouterClient.json(responseBody);
    }
  }

  private final String target;
  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "wire-tap");
    t.setDaemon(true);
    return t;
  });
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
  private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();

  /** Listens on an ephemeral loopback port and relays to {@code target} (an engine's base URL). */
  WireTap(String target) throws IOException {
    this.target = target;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(threads); // a streaming relay holds its thread until the engine's [DONE]
    server.createContext("/", this::relay);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Every recorded POST so far, in the order they completed. */
  List<Exchange> exchanges() {
    return List.copyOf(exchanges);
  }

  private void relay(HttpExchange in) throws IOException {
    try (in) {
      String path = in.getRequestURI().toString();
      byte[] requestBody = in.getRequestBody().readAllBytes();
      String requestId = in.getRequestHeaders().getFirst("X-Request-Id");
      HttpRequest.Builder out = HttpRequest.newBuilder(URI.create(target + path)).timeout(Duration.ofSeconds(30))
          .method(in.getRequestMethod(), requestBody.length == 0
              ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(requestBody));
      for (String header : List.of("Content-Type", "Accept", "X-Request-Id")) {
        String value = in.getRequestHeaders().getFirst(header);
        if (value != null) {
          out.header(header, value);
        }
      }
      HttpResponse<InputStream> response;
      try {
        response = http.send(out.build(), HttpResponse.BodyHandlers.ofInputStream());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        in.sendResponseHeaders(502, -1);
        return;
      } catch (IOException e) {
        in.sendResponseHeaders(502, -1);
        return;
      }
      response.headers().firstValue("content-type").ifPresent(v -> in.getResponseHeaders().set("Content-Type", v));
      ByteArrayOutputStream copy = new ByteArrayOutputStream();
      in.sendResponseHeaders(response.statusCode(), 0); // chunked: each engine write is flushed on
      try (InputStream body = response.body(); OutputStream client = in.getResponseBody()) {
        byte[] buf = new byte[8192];
        int n;
        while ((n = body.read(buf)) >= 0) {
          client.write(buf, 0, n);
          client.flush();
          copy.write(buf, 0, n);
        }
      }
      if (in.getRequestMethod().equals("POST")) {
        exchanges.add(new Exchange(path, requestId, RouterClient.json(new String(requestBody, StandardCharsets.UTF_8)),
            response.statusCode(), copy.toString(StandardCharsets.UTF_8)));
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
