package narwhal.core.api;

/**
 * Errors every front-end answers the same way, with the same words: the ones a front-end finds
 * itself rather than the core (the served model, size limits, an outcome it cannot deliver).
 */
public final class ClientErrors {

  private ClientErrors() {}

  /** 404 {@code model_not_found}: the client named a model this router does not serve. */
  public static RouterError modelNotFound(String requested, String served) {
    return new RouterError(
        404,
        "invalid_request_error",
        "model_not_found",
        "The model `" + requested + "` does not exist; this router serves `" + served + "`.",
        "model",
        null);
  }

  /** 413 {@code request_too_large}: the request is over {@code serving.max_request_bytes}. */
  public static RouterError requestTooLarge(long limit) {
    return RouterError.of(
        413,
        "request_too_large",
        null,
        "Request body exceeds the limit of " + limit + " bytes (serving.max_request_bytes).");
  }

  /**
   * 502 {@code decode}: the stream completed without a token. The core never completes a stream
   * it did not start; a front-end answers this should that contract ever be broken.
   */
  public static RouterError noTokenArrived() {
    return RouterError.of(502, "decode", "decode", "stream ended with [DONE] before any token arrived");
  }

  /** 502 {@code decode}: the engine's output cannot be assembled into one response. */
  public static RouterError unassemblable(String detail) {
    return RouterError.of(502, "decode", "decode", "Upstream response could not be assembled: " + detail);
  }
}
