package narwhal.api;

/**
 * The canonical status codes (gRPC's vocabulary) and the one table that maps a {@link RouterError}'s
 * HTTP status onto them. Every front-end reports the same error through this table: HTTP sends the
 * status itself, gRPC sends {@code io.grpc.Status.Code.valueOf(code.name())} with the same message,
 * so a client of either sees the same failure class and the same words.
 *
 * <p>The constant names are exactly those of {@code io.grpc.Status.Code}; the core does not depend
 * on gRPC.
 */
public enum CanonicalCode {
  OK,
  CANCELLED,
  UNKNOWN,
  INVALID_ARGUMENT,
  DEADLINE_EXCEEDED,
  NOT_FOUND,
  ALREADY_EXISTS,
  PERMISSION_DENIED,
  RESOURCE_EXHAUSTED,
  FAILED_PRECONDITION,
  ABORTED,
  OUT_OF_RANGE,
  UNIMPLEMENTED,
  INTERNAL,
  UNAVAILABLE,
  DATA_LOSS,
  UNAUTHENTICATED;

  /** The canonical code of {@code error}. */
  public static CanonicalCode of(RouterError error) {
    return forHttpStatus(error.status());
  }

  /**
   * The table. Bad input (400, and 413/422, which a client fixes the same way) is
   * INVALID_ARGUMENT; admission refusal (429) RESOURCE_EXHAUSTED, worth retrying after the
   * {@code retry-after} it carries; engine faults and missing engines (502, 503) UNAVAILABLE;
   * every timeout-shaped failure (504, 408) DEADLINE_EXCEEDED. Unlisted 4xx are
   * FAILED_PRECONDITION (the request cannot succeed as it is) and unlisted 5xx INTERNAL.
   */
  public static CanonicalCode forHttpStatus(int status) {
    switch (status) {
      case 400:
      case 413:
      case 422:
        return INVALID_ARGUMENT;
      case 401:
        return UNAUTHENTICATED;
      case 403:
        return PERMISSION_DENIED;
      case 404:
        return NOT_FOUND;
      case 405:
      case 501:
        return UNIMPLEMENTED;
      case 408:
      case 504:
        return DEADLINE_EXCEEDED;
      case 409:
        return ABORTED;
      case 429:
        return RESOURCE_EXHAUSTED;
      case 499:
        return CANCELLED;
      case 500:
        return INTERNAL;
      case 502:
      case 503:
        return UNAVAILABLE;
      default:
        if (status >= 400 && status < 500) {
          return FAILED_PRECONDITION;
        }
        if (status >= 500 && status < 600) {
          return INTERNAL;
        }
        throw new IllegalArgumentException("not an error status: " + status);
    }
  }
}
