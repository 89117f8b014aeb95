package narwhal.adapters.kit;

import narwhal.config.EngineSpec;

/** One running engine of a pair, and what the kit needs to see from the engine's side. */
public interface EngineUnderTest extends AutoCloseable {

  /** How a fleet file would list the engine: URL, dialect, connector, dialect options. */
  EngineSpec spec();

  /**
   * Inference requests the engine is still working on: accepted (waiting or generating) and
   * neither finished nor abandoned by the router. The kit expects it back at zero after every
   * check: no leg may outlive its request.
   */
  long inFlight();

  /** Inference responses the engine saw abandoned by the router (connection closed mid-response). */
  long aborted();

  /** Stops the engine. */
  @Override
  void close();
}
