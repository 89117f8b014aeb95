package narwhal.grpc;

import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
 * how the outcome is written (a stream of events, or one assembled message); this class validates
 * and submits the request and enforces the sink contract around them ({@link SinkGuard}, shared
 * with the HTTP front-end).
 *
 * <p>Threading: gRPC callbacks may arrive on the transport's thread and hop to the call's loop;
 * everything else (the sink, every {@link ServerCall} method after {@code startCall}) runs on the
 * loop, which serialises the call as {@link ServerCall} requires. When gRPC and the engine
 * transport share event loops the two threads are the same and nothing hops.
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
  protected final CallStart start;
  private final CompletionService service;
  private final long maxRequestBytes;
  private final OpenCalls openCalls;
  private final RequestValidator validator;
  /** A validation running off the loop for a large request; null otherwise. */
  private @Nullable Future<?> validating;
  private @Nullable CompletionRequest received;
  private Route route = Route.ROUTE_UNSPECIFIED;
  private final SinkGuard guard = new SinkGuard();
  private boolean begun;

  CompletionCall(ServerCall<CompletionRequest, R> call, CallStart start, CompletionService service,
      long maxRequestBytes, OpenCalls openCalls, RequestValidator validator) {
    this.call = call;
    this.validator = validator;
    this.start = start;
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
    start.loop().runInLoop(() -> {
      if (received != null) {
        // Both methods take exactly one request; a client library never sends two.
        close(Status.INTERNAL.withDescription("more than one request message on a unary-request method"),
            new Metadata());
        return;
      }
      received = message;
    });
  }

  @Override
  public final void onHalfClose() {
    start.loop().runInLoop(this::begin);
  }

  @Override
  public final void onCancel() {
    // A cancel at the client's deadline (gRPC's own timer, or the client's RST_STREAM a moment
    // ahead of it) waits for the deadline to pass on the loop: the core's deadline, never later,
    // fires first and ends the request as expired, a 504 measured as one, not as a disconnect.
    Deadline deadline = start.deadline();
    long remaining = deadline == null ? Long.MAX_VALUE : deadline.timeRemaining(TimeUnit.NANOSECONDS);
    if (remaining <= DEADLINE_SLACK_NANOS) {
      start.loop().schedule(this::clientGone, Math.max(0, remaining), TimeUnit.NANOSECONDS);
    } else {
      start.loop().runInLoop(this::clientGone);
    }
  }

  @Override
  public final void onReady() {
    start.loop().runInLoop(guard::clientWritable);
  }

  // ---- the request ----

  private void begin() {
    if (guard.ended() || begun) {
      return;
    }
    begun = true;
    CompletionRequest message = received;
    if (message == null) {
      close(Status.INTERNAL.withDescription("half-closed without a request message"), new Metadata());
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
      validated(message, validator.validateNow(shaped, service.model()));
      return;
    }
    // A large request: validated off the loop, so the loop's other calls are not held up.
    validating = validator.validateLater(shaped, service.model(), outcome -> {
      try {
        start.loop().runInLoop(() -> {
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
  private void validated(CompletionRequest message, RequestValidator.Outcome outcome) {
    if (guard.ended()) {
      return; // cancelled while validating: nothing was admitted, so nothing is held
    }
    if (outcome.invalid() != null) {
      refuse(message, outcome.invalid().error());
    } else if (outcome.request() == null) {
      log.error("validating a request failed", outcome.failure());
      close(Status.INTERNAL.withDescription("internal router error"), new Metadata());
    } else {
      route = outcome.request().getRoute();
      submit(withTraceContext(outcome.request(), message));
    }
  }

  /** Recorded by the core (journal "invalid", metrics) as the HTTP front-end's refusals are. */
  private void refuse(CompletionRequest message, RouterError error) {
    service.rejectInvalid(start.loop(), start.arrivalNanos(), clientRequestId(message), error, start.caller());
    respondError(error);
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
   * The client's trace context, set after validation, which rebuilds the message from its OpenAI
   * fields. Metadata, like HTTP headers, carries it; the message's own fields count only without
   * it. The core validates it.
   */
  private CompletionRequest withTraceContext(CompletionRequest valid, CompletionRequest message) {
    boolean fromMetadata = !start.traceparent().isEmpty();
    return valid.toBuilder()
        .setTraceparent(fromMetadata ? start.traceparent() : message.getTraceparent())
        .setTracestate(fromMetadata ? start.tracestate() : message.getTracestate())
        .build();
  }

  /** The client's id for the request: the message's field, else its {@code x-request-id} header. */
  private @Nullable String clientRequestId(CompletionRequest message) {
    return message.getClientRequestId().isEmpty() ? start.clientRequestId() : message.getClientRequestId();
  }

  private void submit(CompletionRequest request) {
    Long deadlineNanos = start.deadlineNanos();
    try {
      guard.submit(() -> service.submit(
          request, this, start.loop(), start.arrivalNanos(), deadlineNanos, start.caller()));
    } catch (RuntimeException e) {
      log.error("CompletionService.submit failed", e);
      close(Status.INTERNAL.withDescription("internal router error"), new Metadata());
    }
  }

  /** The client went away (cancelled, deadline, connection lost): cancel unless already closed. */
  private void clientGone() {
    if (!guard.ended()) {
      markTerminal();
      cancelHandle();
    }
    dropValidation();
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
    start.loop().runInLoop(() -> {
      dropValidation();
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
    assert start.loop().inLoop() : "ClientSink called off the call's loop";
    return guard.accept(replay);
  }
}
