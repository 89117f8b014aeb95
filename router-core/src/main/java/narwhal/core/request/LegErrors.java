package narwhal.core.request;

import java.util.concurrent.CompletionException;
import narwhal.core.legs.EngineFailure;
import narwhal.core.legs.EngineFailures;
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
    log.error("unexpected error in the {} leg", phase.wireName(), t);
    return EngineFailures.internal(phase, t);
  }
}
