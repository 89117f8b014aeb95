package narwhal.core.request;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.api.ClientSink;
import narwhal.api.RequestHandle;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.core.admission.AdmissionPrice;
import narwhal.core.admission.RefusalCause;
import narwhal.core.fleet.DecodePace;
import narwhal.core.fleet.EngineState;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import narwhal.core.trace.RequestTrace;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import narwhal.core.legs.DecodeCall;
import narwhal.core.legs.DecodeListener;
import narwhal.core.legs.DraftedDecode;
import narwhal.time.Deadline;
import narwhal.time.Durations;
import narwhal.core.legs.EngineFailure;
import narwhal.spi.Phase;
import narwhal.core.legs.TokenCounts;
import narwhal.spi.PrefillResult;
import narwhal.spi.HandoffStyle;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.StreamOptions;
import org.jspecify.annotations.Nullable;

/**
 * One client request, from admission to its journal row, as an explicit state machine
 * ({@link RequestState}) confined to the request's scheduler.
 *
 * <p>The request owns, per the spec: handoff-age enforcement, its phase reservations, its retries
 * and its cleanup. Every path out (completion, every failure, the deadline, client disconnect)
 * goes through {@link #end}, which releases reservations and timers exactly once.
 *
 * <p>What a failure means (retryable? quarantined? counted by the breaker?) is the failure
 * policy's ({@code narwhal.api.FailurePolicy}); the request decides only what depends on its own
 * state: whether output is visible, which engines to exclude, and whether its attempts, deadline
 * and the shared credits leave room for a retry ({@link RetryGate}). The legs of the current
 * attempt are in {@link AttemptLegs}; a concurrent handoff's pair is a {@link
 * ConcurrentHandoffAttempt}.
 *
 * <p>Why one class of about 640 lines: it is the request's state machine. Every transition reads
 * and writes the same loop-confined state (the state, the attempt's engines, the deadline, the
 * retry credit, the per-token counts the relay keeps without an indirection) and every path must
 * reach {@link #end} exactly once; split across classes, each would need that state and the
 * exactly-once rule would no longer be checkable in one place. Each job that is not a transition
 * is its own class, one per phase: admission's price ({@link FirstAttemptPricing}), sizing the
 * prompt ({@link PromptSizing}), placement ({@link PricedPlacement}), the work done while the
 * producer prefills ({@link DecodePreparation}), the handoff's age ({@link
 * RequestErrors#handoffExpiry}; the descriptor itself is checked by the decode leg before anything
 * is rendered from it), the legs and reservations ({@link AttemptLegs}), the concurrent pair
 * ({@link ConcurrentHandoffAttempt}), the client relay ({@link ClientRelay}), the retry decision
 * ({@link RetryGate}), blame ({@link FailureBlame}), the error texts ({@link RequestErrors}) and
 * the journal row ({@link RequestRecord}).
 */
final class RequestLifecycle implements RequestHandle, DecodeListener {


  private final RouterRuntime rt;
  private final CompletionRequest request;
  private final ClientSink sink;
  private final Scheduler loop;
  private final long arrivalNanos;
  private final String requestId;
  /** Computed once at admission (the earlier of the client's and serving.request_timeout_s). */
  private final Deadline deadline;
  /**
   * The prompt's size in tokens: the router's estimate until {@link #sizing} has counted it, then
   * the exact count when it could; what admission prices and the reservations weigh.
   */
  private long promptTokens;
  private final PromptSizing sizing;
  private final PricedPlacement placement;
  /** Predictive admission of the first attempt (retries were admitted already), and its price. */
  private final FirstAttemptPricing pricing;
  /** The journal row, built when the request ends. */
  private final RequestRecord record;

  private RequestState state = RequestState.ADMITTED;
  private Timer deadlineTimer = Timer.NONE;
  private Timer backoffTimer = Timer.NONE;
  /**
   * A retry credit is held for an attempt not yet dispatched: taken when the retry is scheduled,
   * spent when its prefill is dispatched, refunded by {@link #end} if it never was.
   */
  private boolean retryCreditHeld;
  private int attempts;
  /**
   * Engines the next attempt should avoid: those that failed this request, and the producer of a
   * decode that failed. A preference only: placement falls back to them rather than leave a role
   * empty ({@code Fleet}).
   */
  private final Set<String> avoided = new HashSet<>();
  private final AttemptFailures attemptFailures = new AttemptFailures();
  private final AttemptLegLog legLog = new AttemptLegLog();
  /** The request's span and the trace context its legs send; ended in {@link #end}. */
  private final RequestTrace trace;
  private final FailureBlame blame;

  private @Nullable EngineState producer;
  private @Nullable EngineState consumer;
  private final AttemptLegs legs = new AttemptLegs();
  /** The current attempt's pair when its handoff is concurrent; null for a sequential handoff. */
  private @Nullable ConcurrentHandoffAttempt concurrent;
  /** The decode leg's draft and readied connection, made while a prefill leg runs. */
  private final DecodePreparation decodePrep;

  private final ClientRelay relay;
  private long ttftNanos = -1;
  private long firstByteNanos = -1;
  private int tokens;
  /** The prompt length the engine reported in its usage, or null before (or without) one. */
  private @Nullable Long enginePromptTokens;
  /** The cached prompt tokens the last producer reported (the journal's {@code cached_tokens}), or null. */
  private @Nullable Long reportedCachedTokens;
  private final RequestTimeline timeline = new RequestTimeline();
  /** Token gaps not yet handed to the decode engine's pace (only one engine's: output commits). */
  private final DecodePace.StreamTally paceTally = new DecodePace.StreamTally();
  /** The admission seat this request holds (released in {@link #end}) and its arrival. */
  private final RequestTicket ticket;
  private @Nullable RouterError abortError;
  private @Nullable String abortReason;
  private boolean recorded;

  /**
   * @param request pinned to the served model, under the trace context it arrived with
   * @param ticket the admission the request takes over: its arrival, deadline and seat
   */
  RequestLifecycle(RouterRuntime rt, CompletionRequest request, ClientSink sink, RequestTicket ticket) {
    this.rt = rt;
    this.request = request;
    this.sink = sink;
    this.ticket = ticket;
    this.loop = ticket.loop();
    this.arrivalNanos = ticket.arrival().arrivalNanos();
    this.requestId = ticket.requestId();
    this.deadline = ticket.deadline();
    this.relay = new ClientRelay(sink, legs);
    this.blame = new FailureBlame(rt.health(), this::quarantine);
    this.sizing = new PromptSizing(rt, request, loop, requestId);
    this.promptTokens = sizing.estimate();
    this.placement = new PricedPlacement(rt.fleet(), rt.placementCost(), rt.cache());
    this.pricing = new FirstAttemptPricing(rt.predictive());
    this.decodePrep = new DecodePreparation(rt, request, placement, loop);
    this.trace = rt.tracing().startRequest(requestId, rt.settings().model(), RequestRecord.routeName(request),
        request.getTraceparent(), request.getTracestate());
    this.record = new RequestRecord(rt, ticket, request, sizing, timeline, attemptFailures, blame, trace, legLog,
        pricing, placement);
  }

  /** The KV tokens a decode of this request holds at its end: prompt plus wanted output. */
  private long kvTokens() {
    return promptTokens + wantedTokens();
  }

  @Override
  public String requestId() {
    return requestId;
  }

  /** The prompt's size in tokens as the router estimates it (the role controller's demand evidence). */
  long promptTokens() {
    return promptTokens;
  }

  /** The output tokens the request asks for at most, 0 when it names no limit (demand evidence). */
  long wantedTokens() {
    long wanted = request.hasMaxCompletionTokens() ? request.getMaxCompletionTokens()
        : request.hasMaxTokens() ? request.getMaxTokens() : 0;
    return Math.max(0, wanted);
  }

  /**
   * Starts once the ticket's seat is granted (a separate task even when it already is), or ends
   * with 504 {@code queue_expired} if the wait runs out.
   */
  void admitted() {
    ticket.seat().whenSeated(this::start, this::onQueueExpired);
  }

  private void onQueueExpired() {
    if (state != RequestState.ADMITTED) {
      return;
    }
    if (deadline.passed(loop.nanoTime())) {
      onDeadline(); // the wait was cut short by the request's own deadline: that is what expired
    } else {
      end(Terminal.EXPIRED, "queue_timeout", AdmissionErrors.queueExpired(loop.nanoTime() - arrivalNanos));
    }
  }

  void start() {
    if (state != RequestState.ADMITTED) {
      return; // cancelled while it waited for its seat
    }
    long remaining = deadline.remainingNanos(loop.nanoTime());
    if (remaining <= 0) {
      onDeadline(); // the wait for a seat used up the deadline
      return;
    }
    deadlineTimer = loop.schedule(this::onDeadline, remaining, TimeUnit.NANOSECONDS);
    sizePrompt();
  }

  /**
   * Sizes the prompt ({@link PromptSizing}: counted by the engine placement would pick for prefill,
   * or estimated), then starts the first attempt with that size.
   */
  private void sizePrompt() {
    long now = loop.nanoTime();
    EngineState target = placement.countTarget(avoided, now, promptTokens, (now - arrivalNanos) / 1e9);
    if (target == null) {
      failNoEngine("prefill");
      return;
    }
    state = RequestState.SIZING;
    sizing.size(target, () -> {
      if (state == RequestState.SIZING) {
        promptTokens = sizing.tokens();
        placement.usePrompt(rt.cache().prompt(sizing.tokenIds()));
        startAttempt();
      }
    });
  }

  /**
   * The producer's own count of the prompt from its prefill answer (0: none): what the journal's
   * {@code input_len} reports when the router only estimated, until a decode usage report replaces it.
   */
  private void producerReported(long promptTokens) {
    if (promptTokens > 0) {
      enginePromptTokens = promptTokens;
    }
  }

  /**
   * Predictive admission, before the first attempt's dispatch only ({@link FirstAttemptPricing}).
   * True when it refused (and the request has ended).
   */
  private boolean refusedOnPrice(long now) {
    FirstAttemptPricing.Refusal refusal =
        pricing.check(producer, promptTokens, placement.usableCachedTokens(), (now - arrivalNanos) / 1e9);
    if (refusal == null) {
      return false;
    }
    end(Terminal.REFUSED, refusal.reason(), refusal.error());
    return true;
  }

  // ---- attempt: prefill placement -> prefill leg -> handoff -> decode placement -> decode leg ----

  private void startAttempt() {
    timeline.attemptStarted(loop.nanoTime());
    state = RequestState.PREFILL_PLACEMENT;
    concurrent = null;
    // Picked into a local: when no engine is left, the row keeps naming the last attempt's pair.
    long now = loop.nanoTime();
    EngineState picked = placement.prefill(avoided, now, promptTokens, (now - arrivalNanos) / 1e9);
    if (picked == null) {
      failNoEngine("prefill");
      return;
    }
    producer = picked;
    if (refusedOnPrice(now)) {
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
    legs.prefillReservation = producer.reservePrefill(promptTokens, placement.usableCachedTokens());
    rt.cache().placed(placement.cacheLabel());
    placement.prompt().placedOn(producer);
    int attempt = attempts;
    timeline.prefillDispatched(loop.nanoTime());
    String backendId = AttemptLegLog.prefillId(requestId, attempt);
    legLog.prefill(attempt, producer.iid(), backendId);
    CompletableFuture<PrefillResult> call = rt.engines().prefill(producer.spec(), request,
        rt.settings().prefillLimits(), loop, trace.leg(Phase.PREFILL.wireName(), producer.iid(), attempt, backendId));
    legs.prefillCall = call;
    // Queued behind the prefill request's write (the transport writes it in a task of its own on
    // this loop, queued just now), so that none of this work delays that request.
    loop.execute(() -> whilePrefilling(attempt));
    call.whenComplete((result, error) -> {
      // Stale callbacks (a cancelled attempt) are ignored: only the live attempt moves the state.
      if (attempt == attempts && state == RequestState.PREFILL) {
        onPrefillDone(result, error);
      }
    });
  }

  private void onPrefillDone(@Nullable PrefillResult handoff, @Nullable Throwable error) {
    timeline.prefillDone(loop.nanoTime());
    legs.releasePrefill();
    legs.prefillCall = null;
    if (error != null) {
      onAttemptFailed(LegErrors.asEngineFailure(error, Phase.PREFILL));
      return;
    }
    long now = loop.nanoTime();
    ttftNanos = now - arrivalNanos;
    producerReported(handoff.promptTokens());
    reportedCachedTokens = rt.cache().answered(producer.iid(), placement.prompt(), placement.predictedCachedTokens(),
        handoff.cachedTokens());
    state = RequestState.HANDOFF;
    String expired = RequestErrors.handoffExpiry(handoff, now, rt.settings().handoffBoundNanos());
    if (expired != null) {
      onHandoffExpired(expired);
      return;
    }
    state = RequestState.DECODE_PLACEMENT;
    EngineState picked = placement.decode(producer.iid(), avoided, now, kvTokens());
    if (picked == null) {
      failNoEngine("decode");
      return;
    }
    consumer = picked;
    state = RequestState.DECODE;
    legs.decodeReservation = consumer.reserveDecode(kvTokens());
    if (consumer != producer) {
      placement.prompt().placedOn(consumer); // its KV transfer caches the prompt there too
    }
    timeline.decodeDispatched(now);
    String backendId = AttemptLegLog.decodeId(requestId, attempts);
    legLog.decode(attempts, consumer.iid(), backendId);
    DecodeCall call = rt.engines().decode(consumer.spec(), decodePrep.take(consumer), handoff, rt.settings().decodeLimits(),
        loop, this, trace.leg(Phase.DECODE.wireName(), consumer.iid(), attempts, backendId));
    // A leg can fail inside decode() (an invalid descriptor is rejected before anything is sent);
    // then the state has already moved on and the finished leg must not be kept.
    if (state == RequestState.DECODE) {
      legs.decodeCall = call;
      // Only now is the handoff known to be usable: a descriptor the decode leg rejects is the
      // producer's kv_handoff failure and must not be cleared by this success.
      blame.beforeSuccessOn(producer.iid());
      rt.health().prefillSucceeded(producer.iid());
    }
  }

  /** A concurrent handoff: the pair is placed up front and both legs run at once. */
  private void startConcurrentAttempt() {
    long now = loop.nanoTime();
    state = RequestState.DECODE_PLACEMENT;
    EngineState picked = placement.decode(producer.iid(), avoided, now, kvTokens());
    if (picked == null) {
      failNoEngine("decode");
      return;
    }
    consumer = picked;
    attempts++;
    retryCreditHeld = false;
    state = RequestState.DECODE;
    int attempt = attempts;
    EngineState p = producer;
    concurrent = new ConcurrentHandoffAttempt(p, consumer, legs, loop, timeline);
    String prefillId = AttemptLegLog.prefillId(requestId, attempt);
    String decodeId = AttemptLegLog.decodeId(requestId, attempt);
    legLog.prefill(attempt, p.iid(), prefillId);
    legLog.decode(attempt, consumer.iid(), decodeId);
    concurrent.dispatch(rt.engines(), rt.settings(), request, decodePrep.decodeRequest(), this,
        trace.leg(Phase.PREFILL.wireName(), p.iid(), attempt, prefillId),
        trace.leg(Phase.DECODE.wireName(), consumer.iid(), attempt, decodeId),
        () -> state == RequestState.DECODE,
        () -> attempt == attempts && state != RequestState.DONE,
        new ConcurrentHandoffAttempt.Producer() {
          @Override
          public void answered(long at, long promptTokens) {
            ttftNanos = at - arrivalNanos;
            producerReported(promptTokens);
            blame.beforeSuccessOn(p.iid());
            rt.health().prefillSucceeded(p.iid());
          }

          @Override
          public void failed(EngineFailure failure) {
            if (state == RequestState.RELAY) {
              failAfterOutput(failure);
            } else {
              onAttemptFailed(failure);
            }
          }
        }, promptTokens, kvTokens());
  }

  /** What the router does while the engine prefills, once the prefill request is out. */
  private void whilePrefilling(int attempt) {
    if (attempt != attempts || state != RequestState.PREFILL) {
      return; // the attempt failed, or the request ended, first
    }
    decodePrep.whilePrefilling(producer, avoided, kvTokens());
  }

  private void onHandoffExpired(String message) {
    attemptFailures.add(attempts, "prefill", producer.iid(), "handoff_expired", message);
    legLog.failed(attempts);
    // A retry gets a new handoff, preferably from another producer; the expired one is abandoned.
    avoided.add(producer.iid());
    if (!retryIfPermitted(true)) {
      end(Terminal.EXPIRED, "handoff", RequestErrors.handoffExpired(message));
    }
  }

  // ---- decode stream ----

  @Override
  public void onEvent(StreamEvent event) {
    if (state == RequestState.DONE) {
      return;
    }
    enginePromptTokens = EngineUsage.promptTokens(event, enginePromptTokens);
    if (event.hasToken()) {
      tokens++;
      long gap = timeline.token(loop.nanoTime());
      if (consumer != null) {
        // The engine's decode pace, which the role controller turns into its decode load.
        paceTally.tokenGap(gap, consumer.decodePace());
      }
      if (state != RequestState.RELAY) {
        commit();
      }
      relay.deliver(event);
    } else if (state == RequestState.RELAY) {
      relay.deliver(event);
    } else {
      relay.hold(event);
    }
  }

  private void commit() {
    // No retry can follow visible output, so no later attempt can show a held failure was the
    // request's: the engines hear of them now rather than at the end of a long stream.
    blame.blameAll();
    firstByteNanos = loop.nanoTime() - arrivalNanos;
    state = RequestState.RELAY;
    relay.commit(new ResponseStart(requestId, rt.settings().model(), rt.wallClock().millis() / 1000));
  }

  @Override
  public void clientWritable() {
    if (state == RequestState.RELAY) {
      relay.clientWritable();
    }
  }

  @Override
  public void onComplete() {
    if (state == RequestState.DONE) {
      return;
    }
    legs.decodeCall = null;
    blame.beforeSuccessOn(consumer.iid());
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
    boolean consumerAccepted = legs.decodeCall != null && legs.decodeCall.accepted();
    legs.decodeCall = null;
    legs.releaseDecode();
    // Harmless after a sequential prefill, which released its reservation when it answered.
    legs.releasePrefill();
    EngineFailure failure = concurrent == null ? decodeFailure
        : concurrent.decodeFailed(decodeFailure, consumerAccepted, tokens);
    if (state == RequestState.RELAY) {
      failAfterOutput(failure);
      return;
    }
    onAttemptFailed(failure);
  }

  // ---- failures and retries (only before output is visible) ----

  /** Output is visible: never retry; the client's stream ends with one terminal error event. */
  private void failAfterOutput(EngineFailure failure) {
    blame.failedAfterOutput(failure, producerOf(failure));
    recordAttemptFailure(failure);
    noteRetryReason(RetryReason.OUTPUT_STARTED);
    end(Terminal.FAILED, failure.reason(), failure.toRouterError());
  }

  private void onAttemptFailed(EngineFailure failure) {
    recordAttemptFailure(failure);
    if (blame.attemptFailed(failure, producerOf(failure))) {
      // Failed the same way on two engines of the role: the failure follows the request, so
      // another engine would fail it too. It ends with what the last attempt got.
      noteRetryReason(RetryReason.POISONED);
      end(Terminal.FAILED, failure.reason(), failure.toRouterError());
      return;
    }
    // The retry avoids what failed: a prefill failure the producer; a decode failure the consumer
    // and, less strongly, its producer (a fresh handoff from another producer where there is one).
    avoided.add(failure.engineIid());
    if (failure.phase() == Phase.DECODE && producer != null) {
      avoided.add(producer.iid());
    }
    if (!retryIfPermitted(failure.isTransient())) {
      end(Terminal.FAILED, failure.reason(), failure.toRouterError());
    }
  }

  /**
   * Starts the backoff to a fresh attempt when {@link RetryGate} allows one, noting its decision on
   * the failed attempt's journal entry as its {@code retry_reason}. Returns false, doing nothing
   * else, when no retry follows.
   */
  private boolean retryIfPermitted(boolean transientFault) {
    RetryGate.Decision decision = new RetryGate(rt.backoff(), rt.retryBudget(), rt.settings().maxAttempts())
        .decide(transientFault, attempts, deadline.remainingNanos(loop.nanoTime()));
    noteRetryReason(decision.reason());
    if (!decision.allowed()) {
      return false;
    }
    retryCreditHeld = true;
    state = RequestState.BACKOFF;
    backoffTimer = loop.schedule(() -> {
      if (state == RequestState.BACKOFF) {
        startAttempt();
      }
    }, decision.delayNanos(), TimeUnit.NANOSECONDS);
    return true;
  }

  private void noteRetryReason(RetryReason reason) {
    attemptFailures.noteRetryReason(reason);
  }

  /** No engine in placement can run {@code phase}: avoidances alone never get here ({@code Fleet}). */
  private void failNoEngine(String phase) {
    end(Terminal.FAILED, "no_engine", RequestErrors.noEngine(phase, blame.firstFailedIid()));
  }

  /** The producer a decode failure names to the breaker (its probe goes through it); else null. */
  private @Nullable String producerOf(EngineFailure failure) {
    return failure.phase() == Phase.DECODE && producer != null ? producer.iid() : null;
  }

  /** Keeps the engine out for {@code recovery.failure_quarantine_s} when the policy says so. */
  private void quarantine(EngineFailure failure) {
    long q = rt.settings().quarantineNanos();
    EngineState engine = rt.fleet().get(failure.engineIid());
    if (q > 0 && engine != null && failure.rule().quarantines()) {
      engine.quarantineUntil(loop.nanoTime() + q);
    }
  }

  private void onDeadline() {
    if (state == RequestState.DONE) {
      return;
    }
    end(Terminal.EXPIRED, "deadline",
        RequestErrors.deadlinePassed(deadline, arrivalNanos, state == RequestState.RELAY, tokens));
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
    sizing.cancel();
    if (retryCreditHeld) {
      retryCreditHeld = false;
      rt.retryBudget().refund();
    }
    legs.endAll();
    relay.clear();
    // Held failures not shown to be the request's are their engines' (a poisoned request's were
    // dropped already).
    blame.blameAll();
    timeline.legEnded(loop.nanoTime());
    if (consumer != null) {
      paceTally.flushTo(consumer.decodePace());
    }
    // Freed before the client hears the outcome, so a request it sends next finds the seat.
    ticket.seat().release();

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
    trace.end(outcome.terminal().wireName(), outcome.reason(), outcome.status(),
        outcome.terminal() == Terminal.FAILED || outcome.terminal() == Terminal.EXPIRED);
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
    return record.build(terminal, reason, error, endedIn, new RequestRecord.Progress(promptTokens, enginePromptTokens,
        tokens, ttftNanos, firstByteNanos, producer, consumer, attempts, reportedCachedTokens));
  }

  private void recordAttemptFailure(EngineFailure f) {
    timeline.legEnded(loop.nanoTime());
    attemptFailures.add(attempts, f.phase().wireName(), f.engineIid(), f.reason(), f.getMessage());
    legLog.failed(attempts);
    rt.outcomes().metrics().engineFailed(f.engineIid(), f.phase(), f.failureClass());
    if (f.phase() == Phase.PREFILL) {
      // The failed attempt's decode placement never happened.
      consumer = null;
    }
  }
}
