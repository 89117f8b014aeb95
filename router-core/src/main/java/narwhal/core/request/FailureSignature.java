package narwhal.core.request;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import narwhal.api.FailureClass;
import narwhal.core.legs.EngineFailure;
import narwhal.spi.Phase;
import narwhal.spi.TransportFailure;
import org.jspecify.annotations.Nullable;

/**
 * How a failure looks once the engine's name is taken out, so two engines' failures of one request
 * can be compared: "failed the same way" means equal signatures on two different engines of one
 * role (phase). A signature is the phase, the failure class, the journal reason, the status the
 * client would get, and the status or code the engine itself reported (the HTTP status it
 * answered, or the code of an error object in its stream), when it reported one.
 *
 * <p>Only failures a request's content can cause have a signature. Not: a connection that was
 * never made (refused, or not accepted in time: nothing of the request reached the engine),
 * back-pressure (408/429/503 describe the engine's load, not the request), and classes the breaker
 * does not count (an engine's own 4xx judgement of the request and the router's size limit are
 * never retried and never blamed on the engine anyway).
 */
record FailureSignature(Phase phase, FailureClass failureClass, String reason, int status,
    @Nullable Integer engineStatus) {

  /**
   * The engine's own HTTP status survives only in the description {@code EngineFailures} writes
   * ("... answered HTTP 500: ..."), one format for every leg; the failure's status is the
   * client's (502 for any engine 5xx), which would merge an engine's 500 with its 501.
   */
  private static final Pattern ENGINE_STATUS = Pattern.compile("answered HTTP (\\d{3})");

  /** The signature of {@code f}, or null when it cannot be the request's doing. */
  static @Nullable FailureSignature of(EngineFailure f) {
    if (!f.rule().countsTowardBreaker() || f.failureClass() == FailureClass.OVERLOAD) {
      return null;
    }
    if (f.getCause() instanceof TransportFailure t
        && (t.kind() == TransportFailure.Kind.CONNECT_FAILED || t.kind() == TransportFailure.Kind.CONNECT_TIMEOUT)) {
      return null;
    }
    String message = f.getMessage() == null ? "" : f.getMessage();
    Matcher m = ENGINE_STATUS.matcher(message);
    Integer engineStatus = m.find() ? Integer.valueOf(m.group(1)) : null;
    return new FailureSignature(f.phase(), f.failureClass(), f.reason(), f.status(), engineStatus);
  }
}
