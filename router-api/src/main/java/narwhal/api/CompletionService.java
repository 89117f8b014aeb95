package narwhal.api;

import narwhal.time.Scheduler;
import narwhal.proto.v1.CompletionRequest;
import org.jspecify.annotations.Nullable;

/** The router as front-ends see it: submit a parsed request, receive its outcome on a sink. */
public interface CompletionService {

  /**
   * Starts orchestrating {@code request}. Never blocks; the outcome arrives on {@code sink}, on
   * {@code loop}.
   *
   * @param arrivalNanos {@code loop.nanoTime()} when the request arrived at the router; the
   *     measurement contract ({@code ttft_s}, {@code first_byte_s}) counts from here
   */
  RequestHandle submit(CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos);

  /**
   * As {@link #submit(CompletionRequest, ClientSink, Scheduler, long)}, for a client that set its
   * own deadline (a gRPC deadline): the request's deadline is the earlier of {@code deadlineNanos}
   * and {@code serving.request_timeout_s} after arrival, and expiring it is the request's own
   * {@code 504} (journal {@code expired}), not a client disconnect.
   *
   * <p>The default ignores the client's deadline; a front-end that passes one still cancels the
   * request itself when it passes, so only the measurement differs.
   *
   * @param deadlineNanos the client's deadline as a {@code loop.nanoTime()} value
   */
  default RequestHandle submit(
      CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos, long deadlineNanos) {
    return submit(request, sink, loop, arrivalNanos);
  }

  /**
   * Admission for a request that has just arrived: a seat, a place in the queue, or a refusal
   * (already recorded) to answer at once. Front-ends call it as early as they can; HTTP calls it
   * when the request's headers arrive, so an overloaded router refuses before reading the body.
   * The plain {@code submit} methods above admit by themselves (a refusal then arrives on the sink
   * as an ordinary error), which is what a front-end that reads whole messages (gRPC) can use.
   *
   * <p>The default admits everything and records nothing, for services without admission.
   *
   * @param clientRequestId the client's {@code X-Request-Id}, or null
   */
  default AdmissionTicket admit(Scheduler loop, long arrivalNanos, @Nullable String clientRequestId) {
    return AdmissionTicket.unlimited(RequestIds.uuid(), loop, arrivalNanos);
  }

  /**
   * As {@link #admit(Scheduler, long, String)} for an authenticated {@code caller}: the core
   * records the caller's tenant with the request and applies the tenant's own limits (in-flight
   * seats, request rate, queue share) before the fleet's. The default ignores the caller.
   */
  default AdmissionTicket admit(
      Scheduler loop, long arrivalNanos, @Nullable String clientRequestId, Caller caller) {
    return admit(loop, arrivalNanos, clientRequestId);
  }

  /**
   * As the plain {@code submit} methods (which admit by themselves), for an authenticated {@code
   * caller}; {@code deadlineNanos} is the client's deadline or null. The default ignores the caller.
   */
  default RequestHandle submit(CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos,
      @Nullable Long deadlineNanos, Caller caller) {
    return deadlineNanos == null
        ? submit(request, sink, loop, arrivalNanos)
        : submit(request, sink, loop, arrivalNanos, deadlineNanos);
  }

  /**
   * Checks client credentials; front-ends call it when a request's headers arrive. The default
   * lets every caller in.
   */
  default ClientAuthenticator authenticator() {
    return ClientAuthenticator.OPEN;
  }

  /**
   * Records a completion request refused by {@link #authenticator()} (journal {@code invalid},
   * reason {@code unauthenticated}) and returns its request id; the front-end answers the client
   * itself with {@code refused.refusal()}, that id ({@code x-request-id}, as on every error answer)
   * and, for a 401, its {@code WWW-Authenticate} challenge. The default records nothing.
   */
  default String rejectUnauthenticated(
      Scheduler loop, long arrivalNanos, @Nullable String clientRequestId, Authentication refused) {
    return RequestIds.hex32();
  }

  /**
   * Starts a request admitted by {@link #admit}; the core now owns the ticket and frees its seat
   * when the request ends. A ticket still queued starts once it is seated (or ends with 504
   * {@code queue_expired}); a refused ticket ends at once with its refusal on the sink.
   */
  default RequestHandle submit(AdmissionTicket ticket, CompletionRequest request, ClientSink sink) {
    return submit(request, sink, ticket.loop(), ticket.arrivalNanos());
  }

  /**
   * Records a request whose input was refused before admission (journal {@code invalid}), for a
   * front-end that validates a whole message before taking a ticket. The front-end answers the
   * client itself.
   */
  default void rejectInvalid(
      Scheduler loop, long arrivalNanos, @Nullable String clientRequestId, RouterError error) {}

  /** As {@link #rejectInvalid(Scheduler, long, String, RouterError)} for an authenticated caller. */
  default void rejectInvalid(
      Scheduler loop, long arrivalNanos, @Nullable String clientRequestId, RouterError error, Caller caller) {
    rejectInvalid(loop, arrivalNanos, clientRequestId, error);
  }

  /**
   * This service as {@code frontEnd} uses it: every request admitted, submitted or refused through
   * the returned view is recorded as carried by {@code frontEnd} (the journal's {@code front_end}).
   * A front-end calls it once, when it starts. The default, for services that record nothing, is
   * this service itself.
   */
  default CompletionService forFrontEnd(FrontEnd frontEnd) {
    return this;
  }

  /** The model name this fleet serves. */
  String model();

  /** True when the router admits work (at least one engine per phase is placeable). */
  boolean ready();

  /**
   * The operator's view for {@code GET /narwhal/state} (schema {@code narwhal.state} v1) as JSON-ready
   * maps and lists, or null when this service has none. {@code loop} supplies the clock.
   */
  default java.util.@Nullable Map<String, Object> stateDocument(Scheduler loop) {
    return null;
  }

  /** Why {@link #ready()} is false, for {@code /ready} and the gRPC health service; null when ready. */
  default @Nullable String notReadyReason() {
    return ready() ? null : "not ready";
  }
}
