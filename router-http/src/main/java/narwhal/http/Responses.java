package narwhal.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import narwhal.api.FailurePolicy;
import narwhal.api.RouterError;
import narwhal.openai.Json;
import org.jspecify.annotations.Nullable;

/** Builds complete (non-streaming) responses: JSON bodies and the OpenAI error envelope. */
final class Responses {

  /** The response header carrying the router's request id. */
  static final String REQUEST_ID_HEADER = "x-request-id";

  private Responses() {}

  static FullHttpResponse json(HttpResponseStatus status, JsonNode body) {
    return json(status, Json.compactBytes(body));
  }

  /**
   * The answer to a HEAD request: {@code get}'s status and headers (Content-Length included, as
   * the GET would send) and no body.
   */
  static FullHttpResponse headersOnly(FullHttpResponse get) {
    FullHttpResponse head = get.replace(Unpooled.EMPTY_BUFFER);
    get.release();
    return head;
  }

  static FullHttpResponse json(HttpResponseStatus status, byte[] body) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
    response.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    return response;
  }

  /**
   * {@code {"error":{"message","type","param","code"}}} with the error's status, plus
   * {@code Retry-After} when the error carries one and {@code x-request-id} when known.
   */
  static FullHttpResponse error(RouterError error, @Nullable String requestId) {
    FullHttpResponse response =
        json(HttpResponseStatus.valueOf(FailurePolicy.httpStatus(error)), envelope(error, false));
    if (error.retryAfterSeconds() != null) {
      response.headers().setInt(HttpHeaderNames.RETRY_AFTER, error.retryAfterSeconds());
    }
    if (requestId != null) {
      response.headers().set(REQUEST_ID_HEADER, requestId);
    }
    return response;
  }

  /**
   * The envelope. Plain responses carry the error's {@code code} string; the terminal SSE event
   * carries the status as an integer {@code code}, as vLLM's mid-stream errors do.
   */
  static ObjectNode envelope(RouterError error, boolean statusAsCode) {
    ObjectNode root = Json.mapper().createObjectNode();
    ObjectNode inner = root.putObject("error");
    inner.put("message", error.message());
    inner.put("type", error.type());
    inner.put("param", error.param());
    if (statusAsCode) {
      inner.put("code", FailurePolicy.httpStatus(error));
    } else {
      inner.put("code", error.code());
    }
    return root;
  }

  /** A router bug: a plain-text 500 that leaks no detail. */
  /**
   * 503 when the body decoder's queue is full: more large bodies wait than its threads can take,
   * and decoding one on the event loop instead would stall every other connection there.
   */
  static RouterError decoderBusy() {
    return RouterError.of(503, "server_overloaded_error", null,
            "router is busy decoding other large request bodies; retry shortly")
        .withRetryAfter(1);
  }

  static FullHttpResponse internalError() {
    byte[] body = "internal router error\n".getBytes(StandardCharsets.UTF_8);
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.INTERNAL_SERVER_ERROR,
            Unpooled.wrappedBuffer(body));
    response.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    return response;
  }

  static RouterError notFound(String method, String path) {
    return RouterError.of(
        404,
        "invalid_request_error",
        "not_found",
        "No route for " + method + " " + path + "; this router serves POST /v1/completions, "
            + "POST /v1/chat/completions, GET /v1/models, GET /v1/models/{model}, GET /health, GET /ready, GET /metrics "
            + "and GET /narwhal/state.");
  }

  static RouterError methodNotAllowed(String method, String path, String allowed) {
    return RouterError.of(
        405,
        "invalid_request_error",
        "method_not_allowed",
        "Method " + method + " is not allowed on " + path + "; use " + allowed + ".");
  }

  static RouterError malformedHttp(String detail) {
    return RouterError.invalid("Malformed HTTP request: " + detail, null);
  }
}
