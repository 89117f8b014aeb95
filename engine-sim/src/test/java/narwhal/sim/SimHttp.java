package narwhal.sim;

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
import java.util.function.BooleanSupplier;

/** Test helpers: a JDK HTTP/1.1 client against a {@link SimEngine}, and SSE body parsing. */
final class SimHttp {
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private SimHttp() {}

  static HttpResponse<String> post(SimEngine engine, String path, String json, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(engine.baseUrl() + path))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return send(request.build());
  }

  static HttpResponse<String> get(SimEngine engine, String path) {
    return send(
        HttpRequest.newBuilder(URI.create(engine.baseUrl() + path))
            .timeout(Duration.ofSeconds(20))
            .GET()
            .build());
  }

  static HttpResponse<String> delete(SimEngine engine, String path) {
    return send(
        HttpRequest.newBuilder(URI.create(engine.baseUrl() + path))
            .timeout(Duration.ofSeconds(20))
            .DELETE()
            .build());
  }

  static HttpResponse<String> send(HttpRequest request) {
    try {
      return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The payloads of the {@code data: } events of an SSE body, in order. */
  static List<String> sseData(String body) {
    List<String> events = new ArrayList<>();
    for (String event : body.split("\n\n")) {
      if (event.isEmpty()) {
        continue;
      }
      if (!event.startsWith("data: ")) {
        throw new AssertionError("not an SSE data event: " + event);
      }
      events.add(event.substring("data: ".length()));
    }
    return events;
  }

  /**
   * Polls {@code condition} until true or the deadline; real sockets need a moment. Generous, as
   * it returns as soon as the condition holds: a loaded 2-core CI machine can be slow to fill a
   * socket buffer.
   */
  static void await(String what, BooleanSupplier condition) {
    narwhal.testing.Poll.until(what, Duration.ofSeconds(30), condition);
  }

  /** A completion body: {@code {"model":..,"prompt":..,"max_tokens":n,"stream":s} + extra}. */
  static String completion(String prompt, int maxTokens, boolean stream, String extraFields) {
    return "{\"model\":\"narwhal-sim\",\"prompt\":"
        + quote(prompt)
        + ",\"max_tokens\":"
        + maxTokens
        + ",\"stream\":"
        + stream
        + (extraFields.isEmpty() ? "" : "," + extraFields)
        + "}";
  }

  static String completion(String prompt, int maxTokens, boolean stream) {
    return completion(prompt, maxTokens, stream, "");
  }

  static String quote(String text) {
    try {
      return MAPPER.writeValueAsString(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
