package narwhal.api;

import org.jspecify.annotations.Nullable;

/**
 * An error as the client sees it: an HTTP status plus the OpenAI error envelope
 * {@code {"error": {"message", "type", "param", "code"}}}. The gRPC front-end maps the same value
 * onto a status, so HTTP and gRPC clients read the same message.
 *
 * @param status the HTTP status (400-599)
 * @param type the envelope's {@code type}: the failing phase ({@code prefill}, {@code decode}) for
 *     engine faults, or an OpenAI-style type such as {@code invalid_request_error}
 * @param code the envelope's {@code code}, or null
 * @param message what happened, and for bad input what to fix
 * @param param the offending request field, or null
 * @param retryAfterSeconds a {@code Retry-After} value to send, or null
 */
public record RouterError(
    int status,
    String type,
    @Nullable String code,
    String message,
    @Nullable String param,
    @Nullable Integer retryAfterSeconds) {

  public RouterError {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("not an error status: " + status);
    }
  }

  public static RouterError of(int status, String type, @Nullable String code, String message) {
    return new RouterError(status, type, code, message, null, null);
  }

  public static RouterError invalid(String message, @Nullable String param) {
    return new RouterError(400, "invalid_request_error", null, message, param, null);
  }

  public RouterError withRetryAfter(int seconds) {
    return new RouterError(status, type, code, message, param, seconds);
  }
}
