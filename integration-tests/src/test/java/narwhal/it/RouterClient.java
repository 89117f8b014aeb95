package narwhal.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/** A plain HTTP client for the router, as an OpenAI-compatible client would call it. */
final class RouterClient {

  static final ObjectMapper JSON = new ObjectMapper();

  private final String base;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  /** The router's base URL, e.g. {@code http://127.0.0.1:8000}. */
  String base() {
    return base;
  }

  RouterClient(String base) {
    this.base = base;
  }

  /** A whole response: status, headers and body text. */
  HttpResponse<String> post(String path, String body) {
    try {
      return http.send(request(path, body), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  CompletableFuture<HttpResponse<String>> postAsync(String path, String body) {
    return http.sendAsync(request(path, body), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A streaming call, read to the end: the status and every SSE data payload in order. */
  SseResponse stream(String path, String body) {
    try {
      HttpResponse<Stream<String>> r = http.send(request(path, body), HttpResponse.BodyHandlers.ofLines());
      List<String> data = new ArrayList<>();
      List<String> raw = new ArrayList<>();
      r.body().forEach(line -> {
        raw.add(line);
        if (line.startsWith("data: ")) {
          data.add(line.substring(6));
        }
      });
      return new SseResponse(r.statusCode(), r.headers().firstValue("content-type").orElse(""),
          r.headers().firstValue("x-request-id").orElse(null), data, String.join("\n", raw));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private HttpRequest request(String path, String body) {
    return HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + text, e);
    }
  }

  /** One streaming response as the client saw it. */
  record SseResponse(int status, String contentType, String requestId, List<String> data, String raw) {

    /** The JSON chunks (everything but the final [DONE]). */
    List<JsonNode> chunks() {
      return data.stream().filter(d -> !d.equals("[DONE]")).map(RouterClient::json).toList();
    }

    /** The generated text: completions text or chat content, concatenated. */
    String text() {
      StringBuilder sb = new StringBuilder();
      for (JsonNode c : chunks()) {
        JsonNode choice = c.path("choices").path(0);
        sb.append(choice.path("text").asText(""));
        sb.append(choice.path("delta").path("content").asText(""));
      }
      return sb.toString();
    }

    boolean endsWithDone() {
      return !data.isEmpty() && data.get(data.size() - 1).equals("[DONE]");
    }
  }
}
