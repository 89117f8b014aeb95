package narwhal.core.legs;

import narwhal.spi.Phase;
import narwhal.api.FailureClass;
import narwhal.api.FailureOrigin;
import narwhal.api.FailurePolicy;
import narwhal.api.RouterError;
import org.jspecify.annotations.Nullable;

/**
 * Why one engine leg failed, already mapped to what the client will see.
 *
 * <p>The mapping follows the spec: timeout-shaped faults become 504, other engine faults 502; an
 * error object inside a 200 stream keeps its own status; an engine's own 4xx rejection (other than
 * 408/429) is relayed with its status because it describes the client's request, not the engine.
 *
 * <p>Two texts. {@link #clientMessage()} is what the client reads: it names the engine by iid and
 * the failing phase, never by URL, address or port, and never quotes a Java exception. {@link
 * #getMessage()} is for operators (the journal's {@code attempt_failures}, logs, preflight): the
 * client message, then whatever detail the transport had, the engine's URL included.
 */
public final class EngineFailure extends Exception {

  private static final long serialVersionUID = 1L;

  private final Phase phase;
  private final FailureOrigin origin;
  private final FailureClass failureClass;
  private final int status;
  private final @Nullable Integer engineStatus;
  private final String reason;
  private final String engineIid;
  private final String clientMessage;
  private final @Nullable String operatorDetail;
  private final boolean wouldRecur;

  /**
   * Built by {@link EngineFailures}, which maps the evidence to class and status through {@link
   * FailurePolicy}.
   *
   * @param origin where on the leg the failure showed itself
   * @param status the HTTP status the client gets
   * @param engineStatus the status the engine itself reported (its response's status, or the code
   *     of an error object in its stream), or null when it reported none
   * @param reason the journal's failure reason ({@code engine_unreachable}, {@code engine_timeout},
   *     {@code engine_overloaded}, {@code engine_rejected}, {@code engine_error}, {@code
   *     invalid_response}, {@code response_limit}, ...)
   * @param clientMessage what the client reads: names the engine by iid, never by address, and
   *     quotes no exception
   * @param operatorDetail what only operators read (the transport's own words, the engine's URL),
   *     or null when the client message says everything
   * @param mayDifferNextTime false when a fresh attempt would only repeat this fault (the engine
   *     refused the router's credentials, or answered with something its dialect never sends), so
   *     it is not retried even if its class is; true leaves the decision to the class's rule in
   *     {@link FailurePolicy}, which no failure can widen
   */
  public EngineFailure(
      Phase phase,
      FailureOrigin origin,
      FailureClass failureClass,
      int status,
      @Nullable Integer engineStatus,
      String reason,
      String engineIid,
      String clientMessage,
      @Nullable String operatorDetail,
      boolean mayDifferNextTime,
      @Nullable Throwable cause) {
    super(operatorDetail == null || operatorDetail.isEmpty()
        ? clientMessage : clientMessage + " (" + operatorDetail + ")", cause);
    this.clientMessage = clientMessage;
    this.operatorDetail = operatorDetail == null || operatorDetail.isEmpty() ? null : operatorDetail;
    this.phase = phase;
    this.origin = origin;
    this.failureClass = failureClass;
    this.status = status;
    this.engineStatus = engineStatus;
    this.reason = reason;
    this.engineIid = engineIid;
    this.wouldRecur = !mayDifferNextTime;
  }

  public Phase phase() {
    return phase;
  }

  /** Where on the leg it showed itself. */
  public FailureOrigin origin() {
    return origin;
  }

  public FailureClass failureClass() {
    return failureClass;
  }

  /**
   * The status the engine itself reported: its response's status, or the code of an error object
   * in its stream; null when it reported none (a connection, a timeout, a malformed stream).
   */
  public @Nullable Integer engineStatus() {
    return engineStatus;
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

  /**
   * Whether a fresh attempt may fix it: its class is retryable ({@link FailurePolicy}) and this
   * fault is not one the engine would repeat. Retries also require that no output is visible yet.
   */
  public boolean isTransient() {
    return FailurePolicy.of(failureClass).retryable() && !wouldRecur;
  }

  /** The policy row of this failure's class: breaker remedy, quarantine, retryability. */
  public FailurePolicy.Rule rule() {
    return FailurePolicy.of(failureClass);
  }

  /** What the client reads: the engine by iid, no address, no exception; see the class comment. */
  public String clientMessage() {
    return clientMessage;
  }

  /** What only operators read beyond {@link #clientMessage()} (the transport's words, the URL), or null. */
  public @Nullable String operatorDetail() {
    return operatorDetail;
  }

  /** The client-facing error: {@code type} names the phase, {@code code} the reason. */
  public RouterError toRouterError() {
    return RouterError.of(status, phase.wireName(), reason, clientMessage);
  }

  @Override
  public String toString() {
    return "EngineFailure{" + phase.wireName() + " " + origin.wireName() + " " + failureClass.wireName() + " " + status
        + (engineStatus == null ? "" : " (engine " + engineStatus + ")") + " "
        + reason + " @" + engineIid + ": " + getMessage() + "}";
  }
}
