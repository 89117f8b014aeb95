package narwhal.core.request;

import narwhal.api.FailureClass;
import narwhal.api.FailurePolicy;
import narwhal.core.legs.EngineFailure;
import narwhal.spi.Phase;
import org.jspecify.annotations.Nullable;

/**
 * How a failure looks once the engine's name is taken out, so two engines' failures of one request
 * can be compared: "failed the same way" means equal signatures on two different engines of one
 * role (phase). A signature is the phase, the failure class, the journal reason, the status the
 * client would get, and the status or code the engine itself reported (the HTTP status it
 * answered, or the code of an error object in its stream), when it reported one; the failure
 * carries that status ({@link EngineFailure#engineStatus()}), so an engine's 500 and its 501, both
 * a 502 to the client, stay apart.
 *
 * <p>Only failures a request's content can cause have a signature: which those are is {@link
 * FailurePolicy#requestMayCause}'s decision.
 */
record FailureSignature(Phase phase, FailureClass failureClass, String reason, int status,
    @Nullable Integer engineStatus) {

  /** The signature of {@code f}, or null when it cannot be the request's doing. */
  static @Nullable FailureSignature of(EngineFailure f) {
    if (!FailurePolicy.requestMayCause(f.failureClass(), f.origin())) {
      return null;
    }
    return new FailureSignature(f.phase(), f.failureClass(), f.reason(), f.status(), f.engineStatus());
  }
}
