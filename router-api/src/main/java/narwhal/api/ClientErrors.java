package narwhal.api;

import narwhal.time.Durations;

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

  /**
   * 408 {@code request_timeout}: the request's body did not finish arriving within its time limit.
   * The limit bounds the whole request, the upload included, so a client that stalls mid-body
   * cannot hold an admission seat.
   *
   * @param limitNanos the request's time limit from arrival ({@link AdmissionTicket#timeLimitNanos()})
   */
  public static RouterError bodyTimeout(long limitNanos) {
    return RouterError.of(
        408,
        "request_timeout",
        "request_timeout",
        "Request body did not arrive within " + Durations.describe(limitNanos)
            + " of its headers (serving.request_timeout_s bounds the whole request, the upload included);"
            + " send the whole body right after the headers.");
  }

  /** 502 {@code decode}: the engine's output cannot be assembled into one response. */
  public static RouterError unassemblable(String detail) {
    return RouterError.of(502, "decode", "decode", "Upstream response could not be assembled: " + detail);
  }
}
