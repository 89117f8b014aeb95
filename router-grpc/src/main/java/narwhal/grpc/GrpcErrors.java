package narwhal.grpc;

import io.grpc.Metadata;
import io.grpc.Status;
import narwhal.api.FailurePolicy;
import narwhal.api.RouterError;
import narwhal.proto.v1.StreamError;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RouterError} as a gRPC client receives it: the status from the shared table
 * ({@link FailurePolicy#grpcCode}), the HTTP front-end's message as its description, and the rest of the
 * OpenAI envelope in trailers.
 */
final class GrpcErrors {

  /** The router's request id, in response headers and trailers (as HTTP's {@code x-request-id}). */
  static final Metadata.Key<String> REQUEST_ID = ascii("x-request-id");
  /** Seconds to wait before retrying (429, 503), as HTTP's {@code Retry-After}. */
  static final Metadata.Key<String> RETRY_AFTER = ascii("retry-after");
  /** The envelope's {@code type}: the failing phase or an OpenAI error type. */
  static final Metadata.Key<String> ERROR_TYPE = ascii("narwhal-error-type");
  /** The envelope's {@code code}, when it has one. */
  static final Metadata.Key<String> ERROR_CODE = ascii("narwhal-error-code");
  /** The envelope's {@code param}: the offending request field, when there is one. */
  static final Metadata.Key<String> ERROR_PARAM = ascii("narwhal-error-param");
  /** The HTTP status an HTTP client would have received. */
  static final Metadata.Key<String> HTTP_STATUS = ascii("narwhal-http-status");

  private GrpcErrors() {}

  static Status status(RouterError error) {
    return Status.fromCode(Status.Code.valueOf(FailurePolicy.grpcCode(error).name()))
        .withDescription(error.message());
  }

  static Metadata trailers(RouterError error, @Nullable String requestId) {
    Metadata trailers = requestTrailers(requestId);
    trailers.put(HTTP_STATUS, Integer.toString(FailurePolicy.httpStatus(error)));
    trailers.put(ERROR_TYPE, printable(error.type()));
    if (error.code() != null) {
      trailers.put(ERROR_CODE, printable(error.code()));
    }
    if (error.param() != null) {
      trailers.put(ERROR_PARAM, printable(error.param()));
    }
    if (error.retryAfterSeconds() != null) {
      trailers.put(RETRY_AFTER, Integer.toString(error.retryAfterSeconds()));
    }
    return trailers;
  }

  static Metadata requestTrailers(@Nullable String requestId) {
    Metadata metadata = new Metadata();
    if (requestId != null) {
      metadata.put(REQUEST_ID, printable(requestId));
    }
    return metadata;
  }

  /** The terminal event of a stream that fails after output was sent. */
  static StreamEvent event(RouterError error) {
    StreamError.Builder e = StreamError.newBuilder()
        .setStatus(FailurePolicy.httpStatus(error))
        .setMessage(error.message())
        .setType(error.type());
    if (error.code() != null) {
      e.setCode(error.code());
    }
    return StreamEvent.newBuilder().setError(e).build();
  }

  /**
   * ASCII metadata allows only printable characters; an engine's error type could hold others.
   * (The description has no such limit: gRPC percent-encodes it.)
   */
  private static String printable(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      out.append(c >= 0x20 && c <= 0x7e ? c : '?');
    }
    return out.toString();
  }

  private static Metadata.Key<String> ascii(String name) {
    return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
  }
}
