package narwhal.api;

/**
 * The canonical status codes (gRPC's vocabulary). Which one an error gets is decided by the
 * failure policy ({@link FailurePolicy#grpcCode}): HTTP sends the status itself, gRPC sends
 * {@code io.grpc.Status.Code.valueOf(code.name())} with the same message, so a client of either
 * sees the same failure class and the same words.
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

  /** The canonical code of {@code error}: {@link FailurePolicy#grpcCode(RouterError)}. */
  public static CanonicalCode of(RouterError error) {
    return FailurePolicy.grpcCode(error);
  }

  /** The canonical code of an HTTP error status: {@link FailurePolicy#grpcCode(int)}. */
  public static CanonicalCode forHttpStatus(int status) {
    return FailurePolicy.grpcCode(status);
  }
}
