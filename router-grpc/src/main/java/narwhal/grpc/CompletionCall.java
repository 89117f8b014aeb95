package narwhal.grpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import narwhal.api.AdmissionTicket;
import narwhal.api.Arrival;
import narwhal.api.ClientErrors;
import narwhal.api.ClientSink;
import narwhal.api.CompletionService;
import narwhal.api.InvalidRequestException;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.api.SinkGuard;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code StreamCompletion} or {@code Complete} call: the gRPC listener for the call's single
 * request message and the {@link ClientSink} the core delivers the outcome to. Subclasses decide
 * how the outcome is written (a stream of events, or one assembled message); this class admits,
 * validates and submits the request and enforces the sink contract around them ({@link SinkGuard},
 * shared with the HTTP front-end).
 *
 * <p>Admission comes first, as over HTTP: {@link #admit()} runs when the call starts, before the
 * message is asked for, so an overloaded router refuses without reading it (and an invalid request
 * under overload gets the same 429 on either front-end). The admitted ticket is then held until the
 * request is submitted, or ended exactly once: invalid, abandoned when the client leaves, expired
 * when its deadline passes first.
 *
 * <p>Threading: gRPC callbacks may arrive on the transport's thread and hop to the call's loop;
 * everything else (the sink, every {@link ServerCall} method after {@code startCall}) runs on the
 * loop, which serialises the call as {@link ServerCall} requires. When gRPC and the engine
 * transport share event loops the two threads are the same and nothing hops.
 *
 * <p>Why one class of about 430 lines: it is the call's state machine (admitted, message
 * received, validating, submitted, closed), and the ticket, the validation task and the handle
 * change hands only at its transitions, each exactly once on every path (refusal, invalid input,
 * cancel, deadline, shutdown). The response shapes are {@link StreamingCall} and {@link UnaryCall}.
 *
 * <ul>
 *   <li>Calls the core makes while {@code submit} is still running are replayed once it returns,
 *       so the request id is always known to the response.
 *   <li>Nothing is written after the call was closed or cancelled.
 *   <li>The handle is cancelled at most once: when the client cancels (or its deadline passes)
 *       with the outcome still open, or when the front-end gives up on the response itself.
 * </ul>
 */
abstract class CompletionCall<R> extends ServerCall.Listener<CompletionRequest> implements ClientSink {

  private static final Logger log = LoggerFactory.getLogger(CompletionCall.class);
  /**
   * A cancel this close to the client's deadline is taken for the deadline itself. The server's
   * deadline starts when the call's headers arrive, the client's when it sent them, so the client's
   * cancel at its deadline reaches the server ahead of the server's deadline by the headers' delay,
   * which on a loaded machine is tens of milliseconds (50 ms was too little in CI). The price of a
   * wide margin is small: a client that cancels on purpose within it is journaled as expired, and
   * its engine stream runs on until the deadline.
   */
  private static final long DEADLINE_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  protected final ServerCall<CompletionRequest, R> call;
  protected final Arrival arrival;
  private final CompletionService service;
  private final long maxRequestBytes;
  private final OpenCalls openCalls;
  private final RequestValidator validator;
  /** A validation running off the loop for a large request; null otherwise. */
  private @Nullable Future<?> validating;
  private @Nullable CompletionRequest received;
  private Route route = Route.ROUTE_UNSPECIFIED;
  private final SinkGuard guard = new SinkGuard();
  /** Admitted and not yet submitted or ended; null before admission and after. */
  private AdmissionTicket.@Nullable Admitted admitted;
  private boolean begun;

  CompletionCall(ServerCall<CompletionRequest, R> call, Arrival arrival, CompletionService service,
      long maxRequestBytes, OpenCalls openCalls, RequestValidator validator) {
    this.call = call;
    this.validator = validator;
    this.arrival = arrival;
    this.service = service;
    this.maxRequestBytes = maxRequestBytes;
    this.openCalls = openCalls;
    openCalls.add(this);
  }

  /** Whether the core streams to the client (StreamCompletion) or the answer is assembled. */
  protected abstract boolean streaming();

  protected abstract void started(ResponseStart start);

  protected abstract void event(StreamEvent event);

  protected abstract void completed();

  protected abstract void failed(RouterError error);

  // ---- gRPC listener: the transport's thread ----

  @Override
  public final void onMessage(CompletionRequest message) {
    arrival.loop().runInLoop(() -> {
      if (received != null) {
        // Both methods take exactly one request; a client library never sends two.
        protocolViolation("more than one request message on a unary-request method");
        return;
      }
      received = message;
    });
  }

  @Override
  public final void onHalfClose() {
    arrival.loop().runInLoop(this::begin);
  }

  @Override
  public final void onCancel() {
    // A cancel at the client's deadline (gRPC's own timer, or the client's RST_STREAM a moment
    // ahead of it) waits for the deadline to pass on the loop: the core's deadline, never later,
    // fires first and ends the request as expired, a 504 measured as one, not as a disconnect.
    long remaining = arrival.clientDeadline().remainingNanos(arrival.loop().nanoTime());
    if (remaining <= DEADLINE_SLACK_NANOS) {
      arrival.loop().schedule(this::clientGone, Math.max(0, remaining), TimeUnit.NANOSECONDS);
    } else {
      arrival.loop().runInLoop(this::clientGone);
    }
  }

  @Override
  public final void onReady() {
    arrival.loop().runInLoop(guard::clientWritable);
  }

  // ---- the request ----

  /**
   * Admission, on the call's loop when the call starts: a refusal ends the call with its status
   * before the message is read; otherwise the message is asked for.
   */
  final void admit() {
    if (guard.ended()) {
      return; // cancelled before admission ran: nothing was taken
    }
    AdmissionTicket ticket = service.admit(arrival);
    if (ticket instanceof AdmissionTicket.Refused refused) {
      close(GrpcErrors.status(refused.error()), GrpcErrors.trailers(refused.error(), refused.requestId()));
      return;
    }
    admitted = (AdmissionTicket.Admitted) ticket;
    // One message is the whole request; asking for two lets a protocol violation be seen.
    call.request(2);
  }

  private void begin() {
    if (guard.ended() || begun || admitted == null) {
      return;
    }
    begun = true;
    CompletionRequest message = received;
    if (message == null) {
      protocolViolation("half-closed without a request message");
      return;
    }
    received = null;
    CompletionRequest shaped;
    try {
      shaped = shape(message);
    } catch (InvalidRequestException e) {
      refuse(message, e.error());
      return;
    }
    int bytes = message.getSerializedSize();
    if (validator.validatesInline(bytes)) {
      validated(message, validator.validateNow(shaped));
      return;
    }
    // A large request: validated off the loop, so the loop's other calls are not held up.
    validating = validator.validateLater(shaped, outcome -> {
      try {
        arrival.loop().runInLoop(() -> {
          validating = null;
          validated(message, outcome);
        });
      } catch (RejectedExecutionException e) {
        // The loop is shutting down; so is the call, and nothing waits for this outcome.
        log.debug("validated request dropped: event loop shut down", e);
      }
    });
    if (validating == null) {
      refuse(message, RequestValidator.busy());
    }
  }

  /** The outcome of validation, on the loop; dropped when the call ended meanwhile. */
  private void validated(CompletionRequest message, RequestValidator.Validated outcome) {
    if (guard.ended()) {
      return; // cancelled while validating: the ticket was ended then
    }
    if (outcome.invalid() != null) {
      refuse(message, outcome.invalid().error());
    } else if (outcome.request() == null) {
      log.error("validating a request failed", outcome.failure());
      takeTicket().abandon();
      close(Status.INTERNAL.withDescription("internal router error"), new Metadata());
    } else {
      route = outcome.request().getRoute();
      submit(withOwnTraceContext(outcome.request(), message));
    }
  }

  /** Recorded by the core (journal "invalid", metrics) through the ticket, as over HTTP. */
  private void refuse(CompletionRequest message, RouterError error) {
    takeTicket().invalid(error);
    respondError(error);
  }

  /** A call that broke gRPC's own contract for a unary-request method: INTERNAL, recorded as invalid. */
  private void protocolViolation(String what) {
    AdmissionTicket.Admitted ticket = admitted;
    admitted = null;
    if (ticket != null) {
      ticket.invalid(RouterError.of(400, "invalid_request_error", null, what));
    }
    close(Status.INTERNAL.withDescription(what), new Metadata());
  }

  /** The admitted request leaves the call's hands (submitted or ended). */
  private AdmissionTicket.Admitted takeTicket() {
    AdmissionTicket.Admitted ticket = admitted;
    if (ticket == null) {
      throw new IllegalStateException("no admitted request in progress");
    }
    admitted = null;
    return ticket;
  }

  /**
   * The HTTP front-end's checks, in its order: size (413) here, then validation (400) and the
   * model (404) by the {@link RequestValidator}.
   */
  private CompletionRequest shape(CompletionRequest message) throws InvalidRequestException {
    if (message.getSerializedSize() > maxRequestBytes) {
      throw new InvalidRequestException(ClientErrors.requestTooLarge(maxRequestBytes));
    }
    CompletionRequest.Builder shaped = message.toBuilder()
        // The method, not a field, says whether the client reads a stream.
        .setStream(streaming())
        .removeExtraFields("stream");
    String clientRequestId = clientRequestId(message);
    if (clientRequestId != null) {
      shaped.setClientRequestId(clientRequestId);
    }
    return shaped.build();
  }

  /**
   * The message's own trace context, carried past validation (which rebuilds the message from its
   * OpenAI fields). The core prefers the metadata's, as HTTP headers' are; these count only without it.
   */
  private static CompletionRequest withOwnTraceContext(CompletionRequest valid, CompletionRequest message) {
    return valid.toBuilder().setTraceparent(message.getTraceparent()).setTracestate(message.getTracestate()).build();
  }

  /** The client's id for the request: the message's field, else its {@code x-request-id} header. */
  private @Nullable String clientRequestId(CompletionRequest message) {
    return message.getClientRequestId().isEmpty() ? arrival.clientRequestId() : message.getClientRequestId();
  }

  private void submit(CompletionRequest request) {
    AdmissionTicket.Admitted ticket = takeTicket();
    try {
      guard.submit(() -> service.submit(ticket, request, this));
    } catch (RuntimeException e) {
      log.error("CompletionService.submit failed", e);
      ticket.abandon(); // frees the seat unless the core already took the ticket over
      close(Status.INTERNAL.withDescription("internal router error"), new Metadata());
    }
  }

  /**
   * The client went away (cancelled, deadline, connection lost): cancel unless already closed. A
   * request not yet submitted ends its ticket: expired when its deadline has passed, else abandoned.
   */
  private void clientGone() {
    dropValidation();
    endUnsubmitted();
    if (!guard.ended()) {
      markTerminal();
      cancelHandle();
    }
  }

  /** Ends an admitted ticket the call gives up on before submitting it. */
  private void endUnsubmitted() {
    AdmissionTicket.Admitted ticket = admitted;
    if (ticket == null) {
      return;
    }
    admitted = null;
    if (ticket.deadline().passed(arrival.loop().nanoTime())) {
      ticket.expired(RouterError.of(504, "request_expired", "request_expired", "request deadline of "
          + ticket.deadline().describe(arrival.arrivalNanos()) + " passed before the first token"));
    } else {
      ticket.abandon();
    }
  }

  /** A validation nobody waits for any more: its queue slot is freed, its outcome dropped. */
  private void dropValidation() {
    Future<?> task = validating;
    validating = null;
    if (task != null) {
      validator.cancel(task);
    }
  }

  /** The server is shutting down: end the call UNAVAILABLE, so the client retries elsewhere. */
  final void shutDown() {
    arrival.loop().runInLoop(() -> {
      dropValidation();
      endUnsubmitted();
      if (!guard.ended()) {
        cancelHandle();
        close(Status.UNAVAILABLE.withDescription("the router is shutting down: retry the request"),
            GrpcErrors.requestTrailers(requestId()));
      }
    });
  }

  // ---- ClientSink: the core, on the loop ----

  @Override
  public final void onStart(ResponseStart responseStart) {
    if (accept(() -> onStart(responseStart))) {
      started(responseStart);
    }
  }

  @Override
  public final void onEvent(StreamEvent event) {
    if (accept(() -> onEvent(event)) && (event.hasToken() || event.hasMetadata())) {
      event(event);
    }
  }

  @Override
  public final void onComplete() {
    if (accept(this::onComplete)) {
      completed();
    }
  }

  @Override
  public final void onError(RouterError error) {
    if (accept(() -> onError(error))) {
      failed(error);
    }
  }

  // ---- for subclasses ----

  /** The router's id for the request, once submitted. */
  protected final @Nullable String requestId() {
    return guard.requestId();
  }

  /** The validated request's route (completions or chat). */
  protected final Route route() {
    return route;
  }

  protected final boolean isTerminal() {
    return guard.ended();
  }

  /** Response headers: the router's request id, as HTTP's {@code x-request-id}. */
  protected final Metadata headers(ResponseStart responseStart) {
    String rid = requestId();
    return GrpcErrors.requestTrailers(rid != null ? rid : responseStart.requestId());
  }

  /** Ends the call with {@code error}'s mapped status, description and trailers. */
  protected final void respondError(RouterError error) {
    close(GrpcErrors.status(error), GrpcErrors.trailers(error, requestId()));
  }

  /** Ends the call; nothing more is written. */
  protected final void close(Status status, Metadata trailers) {
    if (guard.ended()) {
      return;
    }
    markTerminal();
    try {
      call.close(status, trailers);
    } catch (RuntimeException e) {
      // A call the transport already closed; nothing is left to tell the client.
      log.debug("closing call failed", e);
    }
  }

  /** The front-end abandons an outcome the core is still producing. */
  protected final void cancelHandle() {
    guard.cancel();
  }

  /**
   * The front-end answers the client with {@code error} itself (e.g. an answer over the size
   * limit): the core stops the request and journals it as failed with {@code reason}.
   */
  protected final void abortHandle(RouterError error, String reason) {
    guard.abort(error, reason);
  }

  private void markTerminal() {
    guard.end();
    openCalls.remove(this);
  }

  /** True when the call should run now; defers it while {@code submit} is on the stack. */
  private boolean accept(Runnable replay) {
    assert arrival.loop().inLoop() : "ClientSink called off the call's loop";
    return guard.accept(replay);
  }
}
