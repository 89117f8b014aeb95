package narwhal.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.api.FrontEnd;
import narwhal.openai.Json;
import narwhal.testing.ScriptedCompletionService;
import narwhal.testing.frontend.FrontEndConformanceSuite;
import narwhal.testing.frontend.FrontEndUnderTest;
import org.jspecify.annotations.Nullable;

/** The HTTP front-end passes the front-end conformance suite, over a raw HTTP/1.1 socket. */
class HttpFrontEndConformanceTest extends FrontEndConformanceSuite {

  private static final long MAX_REQUEST_BYTES = 64 << 10;

  @Override
  protected FrontEndUnderTest start(ScriptedCompletionService service) {
    return new Http(service);
  }

  private static final class Http implements FrontEndUnderTest {
    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final HttpFrontEnd frontEnd;

    Http(ScriptedCompletionService service) {
      frontEnd = HttpFrontEnd.start(new HttpFrontEndOptions("127.0.0.1", 0, MAX_REQUEST_BYTES, 1 << 20), service,
          boss, workers, NioServerSocketChannel.class, Clock.systemUTC());
    }

    @Override
    public FrontEnd frontEnd() {
      return FrontEnd.HTTP;
    }

    @Override
    public boolean carriesClientDeadline() {
      return false;
    }

    @Override
    public long maxRequestBytes() {
      return MAX_REQUEST_BYTES;
    }

    @Override
    public Answer send(Request request) throws Exception {
      try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
        http.post("/v1/completions", body(request), headers(request));
        return answer(http.readResponse());
      }
    }

    @Override
    public void sendAndLeaveAfterFirstToken(Request request) throws Exception {
      try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
        http.post("/v1/completions", body(request), headers(request));
        http.readHead();
        http.readChunk(); // the first token's event
      }
    }

    @Override
    public Partial begin(Request request) throws Exception {
      RawHttpConnection http = new RawHttpConnection(frontEnd.port());
      byte[] body = body(request).getBytes(StandardCharsets.UTF_8);
      StringBuilder head = new StringBuilder("POST /v1/completions HTTP/1.1\r\nHost: test\r\n"
          + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n");
      for (String header : headers(request)) {
        head.append(header).append("\r\n");
      }
      http.send(head.append("\r\n").toString());
      return new Partial() {
        @Override
        public Answer finish() throws Exception {
          http.send(body);
          return answer(http.readResponse());
        }

        @Override
        public void close() throws Exception {
          http.close();
        }
      };
    }

    @Override
    public void close() {
      frontEnd.close();
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static String body(Request request) {
      ObjectNode body = Json.mapper().createObjectNode();
      if (request.model() != null) {
        body.put("model", request.model());
      }
      if (request.prompt() != null) {
        body.put("prompt", request.prompt());
      }
      return body.put("max_tokens", 8).put("stream", request.stream()).toString();
    }

    private static String[] headers(Request request) {
      List<String> headers = new ArrayList<>();
      if (request.authorization() != null) {
        headers.add("Authorization: " + request.authorization());
      }
      if (request.clientRequestId() != null) {
        headers.add("X-Request-Id: " + request.clientRequestId());
      }
      if (request.traceparent() != null) {
        headers.add("traceparent: " + request.traceparent());
      }
      return headers.toArray(String[]::new);
    }

    /** Reads a whole JSON answer, an error envelope, or an SSE stream (text, [DONE], a terminal error). */
    private static Answer answer(RawHttpConnection.Response response) {
      String requestId = response.headers().get("x-request-id");
      boolean challenged = response.headers().containsKey("www-authenticate");
      if (response.status() != 200) {
        return new Answer(response.status(), "", false, false, errorMessage(json(response.body())), requestId,
            challenged);
      }
      String contentType = response.headers().getOrDefault("content-type", "");
      if (!contentType.startsWith("text/event-stream")) {
        JsonNode whole = json(response.body());
        return new Answer(200, whole.path("choices").path(0).path("text").asText(), false, true, null, requestId,
            challenged);
      }
      StringBuilder text = new StringBuilder();
      boolean done = false;
      String error = null;
      for (String line : response.body().split("\n")) {
        if (!line.startsWith("data: ")) {
          continue;
        }
        String data = line.substring("data: ".length()).trim();
        if (data.equals("[DONE]")) {
          done = true;
          continue;
        }
        JsonNode event = json(data);
        if (event.has("error")) {
          error = errorMessage(event);
        } else {
          text.append(event.path("choices").path(0).path("text").asText());
        }
      }
      return new Answer(200, text.toString(), true, done && error == null, error, requestId, challenged);
    }

    private static @Nullable String errorMessage(JsonNode envelope) {
      JsonNode message = envelope.path("error").path("message");
      return message.isMissingNode() ? null : message.asText();
    }

    private static JsonNode json(String text) {
      try {
        return Json.mapper().readTree(text);
      } catch (Exception e) {
        throw new AssertionError("not JSON: " + text, e);
      }
    }
  }
}
