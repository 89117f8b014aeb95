package narwhal.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import narwhal.openai.Json;

/**
 * The message inside an OpenAI-compatible engine's error body, for {@link
 * EngineDialect#errorMessage}. Reads the OpenAI envelope {@code {"error":{"message":..}}}, a bare
 * {@code {"error":"..."}} (vLLM's 401) and the flat {@code {"object":"error","message":..}} that
 * older vLLM releases and SGLang send.
 */
public final class OpenAiErrorBodies {

  /** How much of a body that is not an error object is quoted. */
  private static final int QUOTE_CHARS = 200;

  private OpenAiErrorBodies() {}

  /** The error message, the start of a body that carries none, or "" for an empty body. */
  public static String message(String body) {
    if (body.isBlank()) {
      return "";
    }
    try {
      JsonNode node = Json.mapper().readTree(body);
      JsonNode error = node == null ? null : node.get("error");
      if (error != null && error.isObject() && error.path("message").isTextual()) {
        return error.get("message").asText();
      }
      if (error != null && error.isTextual()) {
        return error.asText();
      }
      if (node != null && node.path("message").isTextual()) {
        return node.get("message").asText();
      }
      if (node != null && node.path("detail").isTextual()) {
        // FastAPI's own errors (unknown route, wrong method): {"detail": "Not Found"}.
        return node.get("detail").asText();
      }
    } catch (IOException e) {
      // Not JSON: fall through and quote the start of the body.
    }
    return body.length() > QUOTE_CHARS ? body.substring(0, QUOTE_CHARS) + "..." : body;
  }
}
