package narwhal.core.request;

import narwhal.api.AdmissionTicket;
import narwhal.api.Arrival;
import narwhal.api.Caller;
import narwhal.api.ClientSink;
import narwhal.api.CompletionService;
import narwhal.api.InvalidRequestException;
import narwhal.api.RequestHandle;
import narwhal.api.RouterError;
import narwhal.api.ServedModel;
import narwhal.core.admission.Seat;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import narwhal.proto.v1.CompletionRequest;
import narwhal.time.Deadline;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * The core's side of one admitted request ({@link AdmissionTicket.Owner}): its {@link Arrival},
 * deadline and admission {@link Seat}. Either it records the outcome itself (refused at admission,
 * invalid input, client gone or time run out before submit, another model, a model the tenant may
 * not use) or it starts a {@link RequestLifecycle}, which then owns the seat. The {@link
 * AdmissionTicket.Admitted} wrapping it guarantees each ending happens once. Confined to the
 * request's scheduler.
 */
final class RequestTicket implements AdmissionTicket.Owner {

  private final RouterRuntime rt;
  private final CompletionService issuer;
  private final Arrival arrival;
  private final Deadline deadline;
  private final Seat seat;

  RequestTicket(RouterRuntime rt, CompletionService issuer, Arrival arrival, Deadline deadline, Seat seat) {
    this.rt = rt;
    this.issuer = issuer;
    this.arrival = arrival;
    this.deadline = deadline;
    this.seat = seat;
  }

  Arrival arrival() {
    return arrival;
  }

  Deadline deadline() {
    return deadline;
  }

  Scheduler loop() {
    return arrival.loop();
  }

  String requestId() {
    return arrival.requestId();
  }

  /** Who sent the request: its tenant, or anonymous without tenants. */
  Caller caller() {
    return arrival.caller();
  }

  Seat seat() {
    return seat;
  }

  @Override
  public CompletionService issuer() {
    return issuer;
  }

  /** The error admission refused the seat with, or null when seated or queued. */
  @Nullable RouterError refusal() {
    Seat.Refusal refusal = seat.refusal();
    return refusal == null ? null : AdmissionErrors.refusal(refusal, seat, rt.admission().limits());
  }

  /** Records the refusal; called once, by admission, when the seat was refused. */
  void recordRefusal() {
    Seat.Refusal refusal = seat.refusal();
    if (refusal == null) {
      return;
    }
    if (refusal.tenantLimit()) {
      // The tenant's own limit, not the fleet's: refused with a cause naming it.
      record(outcome(Terminal.REFUSED).reason(AdmissionErrors.tenantCause(refusal)).error(refusal()));
      return;
    }
    record(outcome(Terminal.REJECTED)
        .reason(refusal == Seat.Refusal.INFLIGHT_LIMIT ? "inflight_limit" : "not_ready")
        .error(refusal()));
  }

  @Override
  public void invalid(RouterError error) {
    seat.release();
    record(outcome(Terminal.INVALID).error(error));
  }

  @Override
  public void abandon() {
    seat.release();
    record(outcome(Terminal.CANCELLED).cancelledPhase("request"));
  }

  @Override
  public void expired(RouterError error) {
    seat.release();
    record(outcome(Terminal.EXPIRED).reason("deadline").error(error));
  }

  /**
   * Starts the request the front-end read: pinned to the served model (404 for another, as 400s
   * are, journal {@code invalid}), refused with 403 for a model the tenant may not use, under the
   * trace context that came with it; then a {@link RequestLifecycle} takes the seat over.
   */
  @Override
  public RequestHandle start(CompletionRequest request, ClientSink sink) {
    CompletionRequest pinned;
    try {
      pinned = ServedModel.pin(request, rt.settings().model());
    } catch (InvalidRequestException e) {
      invalid(e.error());
      return new RefusedRequest(requestId(), loop(), sink, e.error());
    }
    RouterError forbidden = rt.tenants().forbidden(caller(), pinned.getModel());
    if (forbidden != null) {
      seat.release();
      record(outcome(Terminal.INVALID).reason("forbidden").error(forbidden));
      return new RefusedRequest(requestId(), loop(), sink, forbidden);
    }
    RequestLifecycle lifecycle = new RequestLifecycle(rt, arrival.trace().applyTo(pinned), sink, this);
    // Demand evidence for the role controller: every request that starts, whatever becomes of it.
    rt.fleet().arrivals().arrived(lifecycle.promptTokens(), lifecycle.wantedTokens());
    // Starts once seated: always as a separate task, so the front-end holds the handle before any
    // sink callback can arrive.
    lifecycle.admitted();
    return lifecycle;
  }

  /** The outcome builder with this request's identity and timing filled in. */
  RequestOutcome.Builder outcome(Terminal terminal) {
    long now = loop().nanoTime();
    return outcome(rt, terminal, arrival, now, seat.queueWaitNanos(now));
  }

  /**
   * The outcome of a request that ends before any lifecycle took it over (refused, invalid, gone or
   * expired before submit): only its identity and timing are known.
   *
   * @param queueWaitNanos the time it waited for a seat, or null when it never asked for one
   */
  static RequestOutcome.Builder outcome(RouterRuntime rt, Terminal terminal, Arrival arrival, long now,
      @Nullable Long queueWaitNanos) {
    return RequestOutcome.builder(arrival.requestId(), terminal)
        .frontEnd(arrival.frontEnd().wireName())
        .tenant(arrival.caller().tenant())
        .clientRid(arrival.clientRequestId())
        .arrived(rt.arrivalEpochSeconds(arrival.arrivalNanos(), now))
        .timing(queueWaitNanos, null, now - arrival.arrivalNanos(), 0);
  }

  private void record(RequestOutcome.Builder outcome) {
    rt.outcomes().record(outcome.build());
  }
}
