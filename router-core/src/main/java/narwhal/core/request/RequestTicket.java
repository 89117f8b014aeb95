package narwhal.core.request;

import narwhal.core.admission.Seat;
import narwhal.api.AdmissionTicket;
import narwhal.api.FrontEnd;
import narwhal.api.RouterError;
import narwhal.api.Caller;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * The core's {@link AdmissionTicket}: the request id, arrival and admission {@link Seat} of one
 * request, and the guarantee that it ends exactly once. Either the ticket records the outcome
 * itself (rejected at admission, invalid input, client gone or time run out before submit) or it is handed to a
 * {@link RequestLifecycle}, which then owns the seat. Confined to the request's scheduler.
 */
final class RequestTicket implements AdmissionTicket {

  private final OutcomeRecorder outcomes;
  private final RouterRuntime rt;
  private final String requestId;
  private final @Nullable String clientRequestId;
  private final Scheduler loop;
  private final long arrivalNanos;
  private final Seat seat;
  private final @Nullable FrontEnd frontEnd;
  private final Caller caller;
  private boolean settled;

  RequestTicket(RouterRuntime rt, String requestId, @Nullable String clientRequestId, Scheduler loop,
      long arrivalNanos, Seat seat, @Nullable FrontEnd frontEnd, Caller caller) {
    this.rt = rt;
    this.outcomes = rt.outcomes();
    this.requestId = requestId;
    this.clientRequestId = clientRid(clientRequestId);
    this.loop = loop;
    this.arrivalNanos = arrivalNanos;
    this.seat = seat;
    this.frontEnd = frontEnd;
    this.caller = caller;
  }

  /** Who sent the request: its tenant, or anonymous without tenants. */
  Caller caller() {
    return caller;
  }

  /** The journal's {@code front_end}: which front-end carried the request, or null when unknown. */
  @Nullable String frontEndName() {
    return frontEnd == null ? null : frontEnd.wireName();
  }

  @Override
  public String requestId() {
    return requestId;
  }

  @Override
  public Scheduler loop() {
    return loop;
  }

  @Override
  public long arrivalNanos() {
    return arrivalNanos;
  }

  @Nullable String clientRequestId() {
    return clientRequestId;
  }

  Seat seat() {
    return seat;
  }

  @Override
  public @Nullable RouterError refusal() {
    Seat.Refusal refusal = seat.refusal();
    return refusal == null ? null : AdmissionErrors.refusal(refusal, seat, rt.admission().limits());
  }

  /** Records the refusal; called once, by admission, when the seat was refused. */
  void recordRefusal() {
    Seat.Refusal refusal = seat.refusal();
    if (refusal == null || !settle()) {
      return;
    }
    if (refusal.tenantLimit()) {
      // The tenant's own limit, not the fleet's: refused with a cause naming it.
      end(outcome(Terminal.REFUSED).reason(AdmissionErrors.tenantCause(refusal)).error(refusal()));
      return;
    }
    end(outcome(Terminal.REJECTED)
        .reason(refusal == Seat.Refusal.INFLIGHT_LIMIT ? "inflight_limit" : "not_ready")
        .error(refusal()));
  }

  /**
   * The tenant may not use the requested model (403): records it as invalid ({@code forbidden})
   * and frees the seat; false when the ticket had already ended.
   */
  boolean forbidden(RouterError error) {
    if (!settle()) {
      return false;
    }
    seat.release();
    end(outcome(Terminal.INVALID).reason("forbidden").error(error));
    return true;
  }

  @Override
  public void invalid(RouterError error) {
    if (settle()) {
      seat.release();
      end(outcome(Terminal.INVALID).error(error));
    }
  }

  @Override
  public void abandon() {
    if (settle()) {
      seat.release();
      end(outcome(Terminal.CANCELLED).cancelledPhase("request"));
    }
  }

  @Override
  public long timeLimitNanos() {
    return rt.settings().requestTimeoutNanos();
  }

  @Override
  public void expired(RouterError error) {
    if (settle()) {
      seat.release();
      end(outcome(Terminal.EXPIRED).reason("deadline").error(error));
    }
  }

  /** A lifecycle takes the ticket over; false when it has already ended (refused or recorded). */
  boolean handOver() {
    return settle();
  }

  /** The outcome builder with this request's identity and timing filled in. */
  RequestOutcome.Builder outcome(Terminal terminal) {
    long now = loop.nanoTime();
    return outcome(rt, terminal, requestId, clientRequestId, arrivalNanos, now, seat.queueWaitNanos(now))
        .frontEnd(frontEndName())
        .tenant(caller.tenant());
  }

  /**
   * The outcome of a request that ends before any lifecycle took it over (refused, invalid, gone or
   * expired before submit): only its identity and timing are known.
   *
   * @param queueWaitNanos the time it waited for a seat, or null when it never asked for one
   */
  static RequestOutcome.Builder outcome(RouterRuntime rt, Terminal terminal, String requestId,
      @Nullable String clientRequestId, long arrivalNanos, long now, @Nullable Long queueWaitNanos) {
    return RequestOutcome.builder(requestId, terminal)
        .clientRid(clientRid(clientRequestId))
        .arrived(rt.arrivalEpochSeconds(arrivalNanos, now))
        .timing(queueWaitNanos, null, now - arrivalNanos, 0);
  }

  private static @Nullable String clientRid(@Nullable String clientRequestId) {
    return clientRequestId == null || clientRequestId.isEmpty() ? null : clientRequestId;
  }

  private boolean settle() {
    if (settled) {
      return false;
    }
    settled = true;
    return true;
  }

  private void end(RequestOutcome.Builder outcome) {
    outcomes.record(outcome.build());
  }
}
