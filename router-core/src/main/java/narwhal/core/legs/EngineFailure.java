package narwhal.core.legs;

import narwhal.spi.Phase;
import narwhal.api.FailureClass;

import narwhal.api.RouterError;
import org.jspecify.annotations.Nullable;

/**
 * Why one engine leg failed, already mapped to what the client will see.
 *
 * <p>The mapping follows the spec: timeout-shaped faults become 504, other engine faults 502; an
 * error object inside a 200 stream keeps its own status; an engine's own 4xx rejection (other than
 * 408/429) is relayed with its status because it describes the client's request, not the engine.
 */
public final class EngineFailure extends Exception {

  private static final long serialVersionUID = 1L;

  private final Phase phase;
  private final FailureClass failureClass;
  private final int status;
  private final String reason;
  private final String engineIid;
  private final boolean transientFault;

  /**
   * @param reason the journal's failure reason ({@code engine_unreachable}, {@code engine_timeout},
   *     {@code engine_overloaded}, {@code engine_rejected}, {@code engine_error}, {@code
   *     invalid_response}, {@code response_limit}, ...)
   * @param transientFault whether a fresh attempt may fix it (transport errors, timeouts, engine
   *     408/429/5xx); retries also require that no output is visible yet
   */
  public EngineFailure(
      Phase phase,
      FailureClass failureClass,
      int status,
      String reason,
      String engineIid,
      String message,
      boolean transientFault,
      @Nullable Throwable cause) {
    super(message, cause);
    this.phase = phase;
    this.failureClass = failureClass;
    this.status = status;
    this.reason = reason;
    this.engineIid = engineIid;
    this.transientFault = transientFault;
  }

  public Phase phase() {
    return phase;
  }

  public FailureClass failureClass() {
    return failureClass;
  }

  /** The HTTP status the client gets. */
  public int status() {
    return status;
  }

  public String reason() {
    return reason;
  }

  /** The engine this failure is blamed on. */
  public String engineIid() {
    return engineIid;
  }

  public boolean isTransient() {
    return transientFault;
  }

  public boolean isTimeoutShaped() {
    return status == 504;
  }

  /** The client-facing error: {@code type} names the phase, {@code code} the reason. */
  public RouterError toRouterError() {
    return RouterError.of(status, phase.wireName(), reason, getMessage());
  }

  @Override
  public String toString() {
    return "EngineFailure{" + phase.wireName() + " " + failureClass.wireName() + " " + status + " "
        + reason + " @" + engineIid + ": " + getMessage() + "}";
  }
}
