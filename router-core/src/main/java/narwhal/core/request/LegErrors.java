package narwhal.core.request;

import java.util.concurrent.CompletionException;
import narwhal.api.FailureClass;
import narwhal.core.legs.EngineFailure;
import narwhal.spi.Phase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns whatever a leg's future completed with into the {@link EngineFailure} the request handles. */
final class LegErrors {

  private static final Logger log = LoggerFactory.getLogger(RequestLifecycle.class);

  private LegErrors() {}

  static EngineFailure asEngineFailure(Throwable error, Phase phase) {
    Throwable t = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (t instanceof EngineFailure f) {
      return f;
    }
    // A bug in a dialect or transport must still end the request cleanly, as a 502. Not retried:
    // the same code would run again. The exception is for operators (log, journal), not clients.
    log.error("unexpected error in the {} leg", phase.wireName(), t);
    return new EngineFailure(phase, FailureClass.INFERENCE_STATUS, 502, "internal",
        "router", "internal error in the " + phase.wireName() + " leg", t.toString(), false, t);
  }
}
