package narwhal.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jspecify.annotations.Nullable;

/**
 * Error bodies: vLLM's envelope {@code {"error":{"message","type","param","code"}}}, and SGLang's
 * flat {@code {"object":"error","message","type","param","code"}} for HTTP errors in SGLang mode.
 */
final class ErrorBodies {
  private ErrorBodies() {}

  /** The HTTP error body the simulated engine family sends. */
  static ObjectNode envelope(SimDialect dialect, int status, String message, @Nullable String param) {
    if (dialect == SimDialect.VLLM) {
      return envelope(status, message, param);
    }
    ObjectNode body = SimJson.object();
    body.put("object", "error");
    body.put("message", message);
    body.put("type", typeFor(status));
    if (param == null) {
      body.putNull("param");
    } else {
      body.put("param", param);
    }
    body.put("code", status);
    return body;
  }

  static ObjectNode envelope(int status, String message, @Nullable String param) {
    ObjectNode error = SimJson.object();
    error.put("message", message);
    error.put("type", typeFor(status));
    if (param == null) {
      error.putNull("param");
    } else {
      error.put("param", param);
    }
    error.put("code", status);
    ObjectNode body = SimJson.object();
    body.set("error", error);
    return body;
  }

  /** The OpenAI error type vLLM reports for an HTTP status. */
  static String typeFor(int status) {
    switch (status) {
      case 400:
        return "BadRequestError";
      case 401:
        return "AuthenticationError";
      case 403:
        return "PermissionDeniedError";
      case 404:
        return "NotFoundError";
      case 409:
        return "ConflictError";
      case 422:
        return "UnprocessableEntityError";
      case 429:
        return "RateLimitError";
      case 501:
        return "NotImplementedError";
      default:
        return status >= 500 ? "InternalServerError" : "BadRequestError";
    }
  }

  /** The message a {@code status=CODE} fault uses when it names none. */
  static String defaultMessage(int status) {
    switch (status) {
      case 429:
        return "Too many requests (simulated).";
      case 503:
        return "The server is overloaded or not ready yet.";
      default:
        return status >= 500 ? "Internal server error" : "Simulated error (HTTP " + status + ")";
    }
  }
}
