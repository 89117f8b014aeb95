package narwhal.core.request;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.api.ClientSink;
import narwhal.api.RequestHandle;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Reservation;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import narwhal.core.retry.Backoff;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import narwhal.core.legs.DecodeCall;
import narwhal.core.legs.DecodeListener;
import narwhal.time.Durations;
import narwhal.core.legs.EngineClient;
import narwhal.core.legs.EngineFailure;
import narwhal.api.FailureClass;
import narwhal.spi.Phase;
import narwhal.core.legs.TokenCounts;
import narwhal.spi.PrefillResult;
import narwhal.spi.HandoffStyle;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.StreamOptions;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client request, from admission to its journal row, as an explicit state machine
 * ({@link RequestState}) confined to the request's scheduler.
 *
 * <p>The request owns, per the spec: handoff-age enforcement, its phase reservations, its retries
 * and its cleanup. Every path out (completion, every failure, the deadline, client disconnect)
 * goes through {@link #end}, which releases reservations and timers exactly once.
 */
final class RequestLifecycle implements RequestHandle, DecodeListener {

  private static final Logger log = LoggerFactory.getLogger(RequestLifecycle.class);
  /** Metadata events held before the first token (e.g. the chat role chunk), as in the Python router. */
  private static final int MAX_EVENTS_BEFORE_FIRST_TOKEN = 64;

  private final RouterRuntime rt;
  private final CompletionRequest request;
  private final ClientSink sink;
  private final Scheduler loop;
  private final long arrivalNanos;
  private final String requestId;
  private final long deadlineNanos;
  /** What bounds the request, for the 504 message: "600 s (serving.request_timeout_s)". */
  private final String deadlineLimit;

  private RequestState state = RequestState.ADMITTED;
  private Timer deadlineTimer = Timer.NONE;
  private Timer backoffTimer = Timer.NONE;
  /**
   * A retry credit is held for an attempt not yet dispatched: taken when the retry is scheduled,
   * spent when its prefill is dispatched, refunded by {@link #end} if it never was.
   */
  private boolean retryCreditHeld;
  private int attempts;
  private final Set<String> excluded = new HashSet<>();
  private final List<Map<String, Object>> attemptFailures = new ArrayList<>();

  private @Nullable EngineState producer;
  private @Nullable EngineState consumer;
  private @Nullable Reservation prefillReservation;
  private @Nullable Reservation decodeReservation;
  private @Nullable CompletableFuture<PrefillResult> prefillCall;
  private @Nullable DecodeCall decodeCall;

  private final ArrayDeque<StreamEvent> heldBeforeFirstToken = new ArrayDeque<>();
  private boolean paused;
  private long ttftNanos = -1;
  private long firstByteNanos = -1;
  private int tokens;
  private final RequestTimeline timeline = new RequestTimeline();
  /** The admission seat this request holds; released in {@link #end}. */
  private @Nullable RequestTicket ticket;
  private @Nullable RouterError abortError;
  private @Nullable String abortReason;
  private boolean recorded;

  RequestLifecycle(RouterRuntime rt, CompletionRequest request, ClientSink sink, Scheduler loop,
      long arrivalNanos, String requestId) {
    this(rt, request, sink, loop, arrivalNanos, requestId, null);
  }

  /** @param clientDeadlineNanos the client's own deadline (gRPC), on {@code loop.nanoTime()}, or null */
  RequestLifecycle(RouterRuntime rt, CompletionRequest request, ClientSink sink, Scheduler loop,
      long arrivalNanos, String requestId, @Nullable Long clientDeadlineNanos) {
    this.rt = rt;
    this.request = request;
    this.sink = sink;
    this.loop = loop;
    this.arrivalNanos = arrivalNanos;
    this.requestId = requestId;
    this.deadlineNanos = rt.settings().deadlineNanos(arrivalNanos, clientDeadlineNanos);
    boolean clientFirst = deadlineNanos != arrivalNanos + rt.settings().requestTimeoutNanos();
    this.deadlineLimit = clientFirst
        ? Durations.describe(Math.max(0, deadlineNanos - arrivalNanos)) + " (the client's deadline)"
        : Durations.describe(rt.settings().requestTimeoutNanos()) + " (serving.request_timeout_s)";
  }

  @Override
  public String requestId() {
    return requestId;
  }

  /**
   * Takes over the request's admission ticket and starts once its seat is granted (a separate
   * task even when it already is), or ends with 504 {@code queue_expired} if the wait runs out.
   */
  void admittedWith(RequestTicket admitted) {
    this.ticket = admitted;
    admitted.seat().whenSeated(this::start, this::onQueueExpired);
  }

  private void onQueueExpired() {
    if (state != RequestState.ADMITTED) {
      return;
    }
    if (deadlineNanos - loop.nanoTime() <= 0) {
      onDeadline(); // the wait was cut short by the request's own deadline: that is what expired
    } else {
      end(Terminal.EXPIRED, "queue_timeout", AdmissionErrors.queueExpired(loop.nanoTime() - arrivalNanos));
    }
  }

  void start() {
    if (state != RequestState.ADMITTED) {
      return; // cancelled while it waited for its seat
    }
    long remaining = deadlineNanos - loop.nanoTime();
    if (remaining <= 0) {
      onDeadline(); // the wait for a seat used up the deadline
      return;
    }
    deadlineTimer = loop.schedule(this::onDeadline, remaining, TimeUnit.NANOSECONDS);
    startAttempt();
  }

  // ---- attempt: prefill placement -> prefill leg -> handoff -> decode placement -> decode leg ----

  private void startAttempt() {
    timeline.attemptStarted(loop.nanoTime());
    state = RequestState.PREFILL_PLACEMENT;
    producer = rt.fleet().pickPrefill(excluded, loop.nanoTime());
    if (producer == null) {
      failNoEngine("prefill");
      return;
    }
    if (rt.engines().handoffStyle(producer.spec()) == HandoffStyle.CONCURRENT) {
      startConcurrentAttempt();
      return;
    }
    // An attempt counts once something is dispatched; so does the retry credit it holds.
    attempts++;
    retryCreditHeld = false;
    state = RequestState.PREFILL;
    prefillReservation = producer.reservePrefill();
    int attempt = attempts;
    timeline.prefillDispatched(loop.nanoTime());
    CompletableFuture<PrefillResult> call =
        rt.engines().prefill(producer.spec(), request, rt.settings().prefillLimits(), loop);
    prefillCall = call;
    call.whenComplete((result, error) -> {
      // Stale callbacks (a cancelled attempt) are ignored: only the live attempt moves the state.
      if (attempt == attempts && state == RequestState.PREFILL) {
        onPrefillDone(result, error);
      }
    });
  }

  private void onPrefillDone(@Nullable PrefillResult handoff, @Nullable Throwable error) {
    timeline.prefillDone(loop.nanoTime());
    release(prefillReservation);
    prefillCall = null;
    if (error != null) {
      onAttemptFailed(asEngineFailure(error, Phase.PREFILL));
      return;
    }
    long now = loop.nanoTime();
    ttftNanos = now - arrivalNanos;
    state = RequestState.HANDOFF;
    long bound = rt.settings().handoffBoundNanos();
    if (bound > 0 && handoff.ageNanos(now) > bound) {
      onHandoffExpired(handoff, bound, now);
      return;
    }
    state = RequestState.DECODE_PLACEMENT;
    consumer = rt.fleet().pickDecode(producer.iid(), excluded, now);
    if (consumer == null) {
      failNoEngine("decode");
      return;
    }
    state = RequestState.DECODE;
    decodeReservation = consumer.reserveDecode();
    timeline.decodeDispatched(now);
    DecodeCall call = rt.engines().decode(
        consumer.spec(), decodeRequest(), handoff, rt.settings().decodeLimits(), loop, this);
    // A leg can fail inside decode() (an invalid descriptor is rejected before anything is sent);
    // then the state has already moved on and the finished leg must not be kept.
    if (state == RequestState.DECODE) {
      decodeCall = call;
      // Only now is the handoff known to be usable: a descriptor the decode leg rejects is the
      // producer's kv_handoff failure and must not be cleared by this success.
      rt.health().prefillSucceeded(producer.iid());
    }
  }

  /**
   * A concurrent handoff (e.g. SGLang): the pair is placed up front and both legs carry one
   * rendezvous and run at once. The decode leg streams to the client as usual; the prefill leg's
   * answer only confirms the producer's part (and marks {@code ttft_s}). Either leg failing
   * cancels the other, so no leg outlives its sibling.
   */
  private void startConcurrentAttempt() {
    long now = loop.nanoTime();
    state = RequestState.DECODE_PLACEMENT;
    consumer = rt.fleet().pickDecode(producer.iid(), excluded, now);
    if (consumer == null) {
      failNoEngine("decode");
      return;
    }
    attempts++;
    retryCreditHeld = false;
    state = RequestState.DECODE;
    prefillReservation = producer.reservePrefill();
    decodeReservation = consumer.reserveDecode();
    int attempt = attempts;
    timeline.legsDispatchedTogether(now);
    EngineClient.ConcurrentLegs legs = rt.engines().concurrent(producer.spec(), consumer.spec(), request,
        decodeRequest(), rt.settings().prefillLimits(), rt.settings().decodeLimits(), loop, this);
    if (state != RequestState.DECODE) {
      return; // the rendezvous was refused before anything was sent; onFailure has moved on
    }
    decodeCall = legs.decode();
    prefillCall = legs.prefill();
    legs.prefill().whenComplete((result, error) -> {
      if (attempt == attempts && prefillCall == legs.prefill() && state != RequestState.DONE) {
        onConcurrentPrefillDone(error);
      }
    });
  }

  private void onConcurrentPrefillDone(@Nullable Throwable error) {
    prefillCall = null;
    release(prefillReservation);
    long now = loop.nanoTime();
    timeline.concurrentPrefillDone(now);
    if (error == null) {
      ttftNanos = now - arrivalNanos;
      rt.health().prefillSucceeded(producer.iid());
      return;
    }
    EngineFailure failure = asEngineFailure(error, Phase.PREFILL);
    // The consumer cannot finish without its producer: end the decode leg with it.
    if (decodeCall != null) {
      decodeCall.cancel();
      decodeCall = null;
    }
    release(decodeReservation);
    timeline.legEnded(now);
    if (state == RequestState.RELAY) {
      failAfterOutput(failure);
      return;
    }
    onAttemptFailed(failure);
  }

  /**
   * In a concurrent handoff, ends the prefill leg when its decode sibling has failed. A decode
   * the consumer had accepted (a 200 stream head) that then timed out without a token while the
   * producer had still not answered was waiting on the producer: that failure is the producer's,
   * a prefill timeout. A consumer that answered an error status itself (408 and 504 included), or
   * never sent its response head within the first-token budget, failed on its own: the spec counts
   * response-header delays against the decode's first-token budget, and the producer is then the
   * one left waiting (SGLang's prefill answers only once its decode has joined the rendezvous).
   */
  private EngineFailure stopConcurrentPrefill(EngineFailure decodeFailure, boolean consumerAccepted) {
    // Harmless after a sequential prefill, which released its reservation when it answered.
    release(prefillReservation);
    CompletableFuture<PrefillResult> sibling = prefillCall;
    if (sibling == null) {
      return decodeFailure;
    }
    // Cleared first: cancelling completes the future, and its callback must see a stale leg.
    prefillCall = null;
    sibling.cancel(false);
    if (tokens == 0 && consumerAccepted && decodeFailure.isTimeoutShaped() && producer != null) {
      return new EngineFailure(Phase.PREFILL, FailureClass.TIMEOUT, 504, "engine_timeout", producer.iid(),
          "prefill engine " + producer.iid() + " had not answered when decode engine " + decodeFailure.engineIid()
              + " gave up waiting for the KV cache: " + decodeFailure.getMessage(), true, null);
    }
    return decodeFailure;
  }

  /**
   * The decode leg always streams, so first-token and silence timeouts can be enforced; for a
   * non-streaming client the router assembles the answer and asks for usage to report it.
   */
  private CompletionRequest decodeRequest() {
    if (request.getStream()) {
      return request;
    }
    return request.toBuilder()
        .setStream(true)
        .setStreamOptions(StreamOptions.newBuilder().setIncludeUsage(true))
        .build();
  }

  private void onHandoffExpired(PrefillResult handoff, long bound, long now) {
    String message = "KV handoff expired before decode dispatch: it was "
        + Durations.describe(handoff.ageNanos(now)) + " old, over the bound of " + Durations.describe(bound);
    recordAttemptFailure("prefill", producer.iid(), "handoff_expired", message);
    // A retry must use a new producer; the expired handoff is abandoned.
    excluded.add(producer.iid());
    if (!retryIfPermitted(true)) {
      RouterError err = RouterError.of(504, "handoff_expired", "handoff_expired", message);
      end(Terminal.EXPIRED, "handoff", err);
    }
  }

  // ---- decode stream ----

  @Override
  public void onEvent(StreamEvent event) {
    if (state == RequestState.DONE) {
      return;
    }
    if (event.hasToken()) {
      tokens++;
      timeline.token(loop.nanoTime());
      if (state != RequestState.RELAY) {
        commit();
      }
      deliver(event);
    } else if (state == RequestState.RELAY) {
      deliver(event);
    } else if (heldBeforeFirstToken.size() < MAX_EVENTS_BEFORE_FIRST_TOKEN) {
      heldBeforeFirstToken.add(event);
    }
  }

  private void commit() {
    firstByteNanos = loop.nanoTime() - arrivalNanos;
    state = RequestState.RELAY;
    sink.onStart(new ResponseStart(requestId, rt.settings().model(), rt.wallClock().millis() / 1000));
    while (!heldBeforeFirstToken.isEmpty()) {
      sink.onEvent(heldBeforeFirstToken.poll());
    }
  }

  private void deliver(StreamEvent event) {
    sink.onEvent(event);
    if (!paused && !sink.isWritable() && decodeCall != null) {
      paused = true;
      decodeCall.pause();
    }
  }

  @Override
  public void clientWritable() {
    if (paused && state == RequestState.RELAY && decodeCall != null) {
      paused = false;
      decodeCall.resume();
    }
  }

  @Override
  public void onComplete() {
    if (state == RequestState.DONE) {
      return;
    }
    decodeCall = null;
    rt.health().decodeSucceeded(consumer.iid());
    rt.retryBudget().onSuccess();
    end(Terminal.COMPLETED, null, null);
  }

  @Override
  public void onFailure(EngineFailure decodeFailure) {
    if (state == RequestState.DONE) {
      return;
    }
    // Read before the leg is dropped: whether the consumer had accepted it decides the blame.
    boolean consumerAccepted = decodeCall != null && decodeCall.accepted();
    decodeCall = null;
    release(decodeReservation);
    EngineFailure failure = stopConcurrentPrefill(decodeFailure, consumerAccepted);
    if (state == RequestState.RELAY) {
      failAfterOutput(failure);
      return;
    }
    onAttemptFailed(failure);
  }

  // ---- failures and retries (only before output is visible) ----

  /** Output is visible: never retry; the client's stream ends with one terminal error event. */
  private void failAfterOutput(EngineFailure failure) {
    reportToBreaker(failure);
    quarantine(failure);
    recordAttemptFailure(failure);
    noteRetryReason(RetryReason.OUTPUT_STARTED);
    end(Terminal.FAILED, failure.reason(), failure.toRouterError());
  }

  private void onAttemptFailed(EngineFailure failure) {
    recordAttemptFailure(failure);
    reportToBreaker(failure);
    quarantine(failure);
    // Blame what failed: a prefill failure excludes the producer; a decode failure excludes the
    // consumer and its producer, so the retry gets a new handoff from a new producer.
    excluded.add(failure.engineIid());
    if (failure.phase() == Phase.DECODE && producer != null) {
      excluded.add(producer.iid());
    }
    if (!retryIfPermitted(failure.isTransient())) {
      end(Terminal.FAILED, failure.reason(), failure.toRouterError());
    }
  }

  /**
   * Starts the backoff to a fresh attempt when the fault is transient, an attempt remains, the
   * original deadline leaves room for the backoff and a shared credit is free (taken last, so a
   * refused retry spends none). Notes the decision on the failed attempt's journal entry as its
   * {@code retry_reason}. Returns false, doing nothing else, when no retry follows.
   */
  private boolean retryIfPermitted(boolean transientFault) {
    boolean attemptLeft = attempts < rt.settings().maxAttempts();
    long delay = transientFault && attemptLeft
        ? rt.backoff().delayNanos(attempts, deadlineNanos - loop.nanoTime())
        : Backoff.NO_TIME_LEFT;
    RetryReason reason;
    if (!transientFault) {
      reason = RetryReason.NON_TRANSIENT;
    } else if (!attemptLeft) {
      reason = RetryReason.ATTEMPT_LIMIT;
    } else if (delay == Backoff.NO_TIME_LEFT) {
      // The backoff floor would reach the deadline: the failure is returned as it is, not
      // replaced by a deadline 504 from a retry that never had time to run.
      reason = RetryReason.ORIGINAL_DEADLINE;
    } else if (!rt.retryBudget().tryAcquire()) {
      reason = RetryReason.SHARED_BUDGET;
    } else {
      reason = RetryReason.ALLOWED;
    }
    noteRetryReason(reason);
    if (reason != RetryReason.ALLOWED) {
      return false;
    }
    retryCreditHeld = true;
    state = RequestState.BACKOFF;
    backoffTimer = loop.schedule(() -> {
      if (state == RequestState.BACKOFF) {
        startAttempt();
      }
    }, delay, TimeUnit.NANOSECONDS);
    return true;
  }

  /** Records, on the latest failed attempt's journal entry, whether and why not a retry followed. */
  private void noteRetryReason(RetryReason reason) {
    if (!attemptFailures.isEmpty()) {
      attemptFailures.get(attemptFailures.size() - 1).put("retry_reason", reason.journalName());
    }
  }

  private void failNoEngine(String phase) {
    boolean someFailed = !excluded.isEmpty();
    String message = someFailed
        ? "no " + phase + " engine is left for this request: every capable engine already failed it"
        : "no " + phase + " engine is available";
    end(Terminal.FAILED, "no_engine",
        RouterError.of(503, "backend_unavailable", "backend_unavailable", message).withRetryAfter(1));
  }

  /** The failure counts against the engine whose leg failed; a decode failure names its producer. */
  private void reportToBreaker(EngineFailure failure) {
    String producerIid = failure.phase() == Phase.DECODE && producer != null ? producer.iid() : null;
    rt.health().legFailed(failure, producerIid);
  }

  private void quarantine(EngineFailure failure) {
    long q = rt.settings().quarantineNanos();
    EngineState engine = rt.fleet().get(failure.engineIid());
    if (q > 0 && engine != null && isEngineFault(failure.failureClass())) {
      engine.quarantineUntil(loop.nanoTime() + q);
    }
  }

  /**
   * Whether a failure says the engine itself is unwell, so quarantine should keep it out. An
   * engine's rejection of the request (a 4xx other than 408/429, class REJECTED) is about the
   * client's request (the breaker counts it as a sign of
   * health), and a response over the router's size limit is the router's rule: quarantining for
   * those would let one client's bad request take a healthy engine out of placement.
   */
  private static boolean isEngineFault(FailureClass failureClass) {
    return switch (failureClass) {
      case CONNECTION, TIMEOUT, OVERLOAD, STREAM, INFERENCE_STATUS, KV_HANDOFF -> true;
      case REJECTED, RESPONSE_LIMIT -> false;
    };
  }

  private void onDeadline() {
    if (state == RequestState.DONE) {
      return;
    }
    if (state == RequestState.RELAY) {
      end(Terminal.EXPIRED, "deadline", RouterError.of(504, "decode", "request_expired",
          "request deadline of " + deadlineLimit + " passed after " + TokenCounts.describe(tokens)));
    } else {
      end(Terminal.EXPIRED, "deadline", RouterError.of(504, "request_expired", "request_expired",
          "request deadline of " + deadlineLimit + " passed before the first token"));
    }
  }

  @Override
  public void cancel() {
    loop.runInLoop(() -> {
      if (state != RequestState.DONE) {
        end(Terminal.CANCELLED, null, null);
      }
    });
  }

  // ---- the one way out ----

  /**
   * Ends the request: stops every leg and timer, releases every reservation, tells the client
   * (unless it is gone) and writes the journal row. Runs at most once.
   */
  private void end(Terminal terminal, @Nullable String reason, @Nullable RouterError error) {
    RequestState endedIn = state;
    state = RequestState.DONE;
    deadlineTimer.cancel();
    backoffTimer.cancel();
    if (retryCreditHeld) {
      retryCreditHeld = false;
      rt.retryBudget().refund();
    }
    if (prefillCall != null) {
      prefillCall.cancel(false);
      prefillCall = null;
    }
    if (decodeCall != null) {
      decodeCall.cancel();
      decodeCall = null;
    }
    release(prefillReservation);
    release(decodeReservation);
    heldBeforeFirstToken.clear();
    timeline.legEnded(loop.nanoTime());
    // Freed before the client hears the outcome, so a request it sends next finds the seat.
    if (ticket != null) {
      ticket.seat().release();
    }

    if (terminal == Terminal.COMPLETED) {
      sink.onComplete();
    } else if (terminal != Terminal.CANCELLED && error != null) {
      sink.onError(error);
    }
    // The front-end may have refused the completed output while handling it (see abort).
    RequestOutcome outcome = abortError != null
        ? outcome(Terminal.FAILED, abortReason, abortError, endedIn)
        : outcome(terminal, reason, error, endedIn);
    recorded = true;
    // One typed outcome: the journal row, the metrics and the log line all come from it.
    rt.outcomes().record(outcome);
  }

  /**
   * The front-end answered the client itself (e.g. a response over serving.max_response_bytes):
   * end as failed with what it sent, rather than as a client disconnect.
   */
  @Override
  public void abort(RouterError error, String reason) {
    loop.runInLoop(() -> {
      if (state != RequestState.DONE) {
        end(Terminal.FAILED, reason, error);
      } else if (!recorded) {
        // Called from inside end()'s sink callback (assembling a completed response failed).
        abortError = error;
        abortReason = reason;
      }
    });
  }

  private RequestOutcome outcome(
      Terminal terminal, @Nullable String reason, @Nullable RouterError error, RequestState endedIn) {
    long now = loop.nanoTime();
    Long inputLen = request.hasPrompt() && request.getPrompt().hasTokenIds()
        ? Long.valueOf(request.getPrompt().getTokenIds().getIdsCount()) : null;
    Long wantedLen = request.hasMaxCompletionTokens() ? Long.valueOf(request.getMaxCompletionTokens())
        : request.hasMaxTokens() ? Long.valueOf(request.getMaxTokens()) : null;
    return RequestOutcome.builder(requestId, terminal)
        .clientRid(request.getClientRequestId())
        .arrived(rt.arrivalEpochSeconds(arrivalNanos, now))
        .request(request.getRoute() == narwhal.proto.v1.Route.ROUTE_CHAT_COMPLETIONS ? "chat" : "completions",
            request.getStream(), inputLen, wantedLen)
        .outputLen(tokens)
        .latency(ttftNanos < 0 ? null : ttftNanos, firstByteNanos < 0 ? null : firstByteNanos,
            timeline.tpotNanos(), timeline.decodeTpotNanos())
        .placement(producer == null ? null : producer.iid(), consumer == null ? null : consumer.iid())
        .reason(reason)
        .error(error)
        .attempts(attempts, timeline.decodeAttempts(), attemptFailures)
        .timing(ticket == null ? null : ticket.seat().queueWaitNanos(now), timeline.routerOverheadNanos(),
            now - arrivalNanos, timeline.upstreamNanos())
        .cancelledPhase(terminal == Terminal.CANCELLED ? cancelledPhase(endedIn) : null)
        .build();
  }

  private static String cancelledPhase(RequestState endedIn) {
    return switch (endedIn) {
      case ADMITTED -> "queue";
      case RELAY -> "decode";
      default -> endedIn.name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  private void recordAttemptFailure(EngineFailure f) {
    timeline.legEnded(loop.nanoTime());
    recordAttemptFailure(f.phase().wireName(), f.engineIid(), f.reason(), f.getMessage());
    if (f.phase() == Phase.PREFILL) {
      // The failed attempt's decode placement never happened.
      consumer = null;
    }
  }

  private void recordAttemptFailure(String phase, String iid, String reason, String message) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("attempt", attempts);
    m.put("phase", phase);
    m.put("iid", iid);
    m.put("reason", reason);
    m.put("message", message);
    attemptFailures.add(m);
  }

  private static void release(@Nullable Reservation r) {
    if (r != null) {
      r.release();
    }
  }

  private static EngineFailure asEngineFailure(Throwable error, Phase phase) {
    Throwable t = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
        ? error.getCause() : error;
    if (t instanceof EngineFailure f) {
      return f;
    }
    // A bug in a dialect or transport must still end the request cleanly, as a 502.
    log.error("unexpected error in the {} leg", phase.wireName(), t);
    return new EngineFailure(phase, narwhal.api.FailureClass.INFERENCE_STATUS, 502, "internal",
        "router", "internal error in the " + phase.wireName() + " leg: " + t, false, t);
  }
}
