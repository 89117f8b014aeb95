package narwhal.sim;

import org.jspecify.annotations.Nullable;

/** A request the engine answers with an HTTP error in vLLM's envelope. */
final class SimHttpException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final @Nullable String param;

  SimHttpException(int status, String message, @Nullable String param) {
    super(message, null, false, false);
    this.status = status;
    this.param = param;
  }

  static SimHttpException badRequest(String message) {
    return new SimHttpException(400, message, null);
  }

  int status() {
    return status;
  }

  @Nullable String param() {
    return param;
  }
}
