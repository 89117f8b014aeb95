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
import narwhal.core.api.ClientSink;
import narwhal.core.api.RequestHandle;
import narwhal.core.api.ResponseStart;
import narwhal.core.api.RouterError;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Reservation;
import narwhal.core.time.Scheduler;
import narwhal.core.time.Timer;
import narwhal.engines.client.DecodeCall;
import narwhal.engines.client.DecodeListener;
import narwhal.engines.client.Durations;
import narwhal.engines.client.EngineFailure;
import narwhal.engines.client.Phase;
import narwhal.engines.connector.PrefillResult;
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

  private RequestState state = RequestState.ADMITTED;
  private Timer deadlineTimer = Timer.NONE;
  private Timer backoffTimer = Timer.NONE;
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

  RequestLifecycle(RouterRuntime rt, CompletionRequest request, ClientSink sink, Scheduler loop,
      long arrivalNanos, String requestId) {
    this.rt = rt;
    this.request = request;
    this.sink = sink;
    this.loop = loop;
    this.arrivalNanos = arrivalNanos;
    this.requestId = requestId;
    this.deadlineNanos = arrivalNanos + rt.settings().requestTimeoutNanos();
  }

  @Override
  public String requestId() {
    return requestId;
  }

  void start() {
    long remaining = deadlineNanos - loop.nanoTime();
    deadlineTimer = loop.schedule(this::onDeadline, remaining, TimeUnit.NANOSECONDS);
    startAttempt();
  }

  // ---- attempt: prefill placement -> prefill leg -> handoff -> decode placement -> decode leg ----

  private void startAttempt() {
    state = RequestState.PREFILL_PLACEMENT;
    producer = rt.fleet().pickPrefill(excluded, loop.nanoTime());
    if (producer == null) {
      failNoEngine("prefill");
      return;
    }
    // An attempt counts once something is dispatched.
    attempts++;
    state = RequestState.PREFILL;
    prefillReservation = producer.reservePrefill();
    int attempt = attempts;
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
    DecodeCall call = rt.engines().decode(
        consumer.spec(), decodeRequest(), handoff, rt.settings().decodeLimits(), loop, this);
    // A leg can fail inside decode() (an invalid descriptor is rejected before anything is sent);
    // then the state has already moved on and the finished leg must not be kept.
    if (state == RequestState.DECODE) {
      decodeCall = call;
    }
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
    if (mayRetry(true)) {
      scheduleRetry();
    } else {
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
    rt.retryBudget().onSuccess();
    end(Terminal.COMPLETED, null, null);
  }

  @Override
  public void onFailure(EngineFailure failure) {
    if (state == RequestState.DONE) {
      return;
    }
    decodeCall = null;
    release(decodeReservation);
    if (state == RequestState.RELAY) {
      // Output is visible: never retry; the stream ends with one terminal error event.
      quarantine(failure);
      recordAttemptFailure(failure);
      end(Terminal.FAILED, failure.reason(), failure.toRouterError());
      return;
    }
    onAttemptFailed(failure);
  }

  // ---- failures and retries (only before output is visible) ----

  private void onAttemptFailed(EngineFailure failure) {
    recordAttemptFailure(failure);
    quarantine(failure);
    // Blame what failed: a prefill failure excludes the producer; a decode failure excludes the
    // consumer and its producer, so the retry gets a new handoff from a new producer.
    excluded.add(failure.engineIid());
    if (failure.phase() == Phase.DECODE && producer != null) {
      excluded.add(producer.iid());
    }
    if (mayRetry(failure.isTransient())) {
      scheduleRetry();
    } else {
      end(Terminal.FAILED, failure.reason(), failure.toRouterError());
    }
  }

  private boolean mayRetry(boolean transientFault) {
    return transientFault
        && attempts < rt.settings().maxAttempts()
        && deadlineNanos - loop.nanoTime() > 0
        && rt.retryBudget().tryAcquire();
  }

  private void scheduleRetry() {
    state = RequestState.BACKOFF;
    long delay = rt.backoff().delayNanos(attempts, deadlineNanos - loop.nanoTime());
    backoffTimer = loop.schedule(() -> {
      if (state == RequestState.BACKOFF) {
        startAttempt();
      }
    }, delay, TimeUnit.NANOSECONDS);
  }

  private void failNoEngine(String phase) {
    boolean someFailed = !excluded.isEmpty();
    String message = someFailed
        ? "no " + phase + " engine is left for this request: every capable engine already failed it"
        : "no " + phase + " engine is available";
    end(Terminal.FAILED, "no_engine",
        RouterError.of(503, "backend_unavailable", "backend_unavailable", message).withRetryAfter(1));
  }

  private void quarantine(EngineFailure failure) {
    long q = rt.settings().quarantineNanos();
    EngineState engine = rt.fleet().get(failure.engineIid());
    if (q > 0 && engine != null) {
      engine.quarantineUntil(loop.nanoTime() + q);
    }
  }

  private void onDeadline() {
    if (state == RequestState.DONE) {
      return;
    }
    String limit = Durations.describe(rt.settings().requestTimeoutNanos());
    if (state == RequestState.RELAY) {
      end(Terminal.EXPIRED, "deadline", RouterError.of(504, "decode", "request_expired",
          "request deadline of " + limit + " (serving.request_timeout_s) passed after " + tokens + " tokens"));
    } else {
      end(Terminal.EXPIRED, "deadline", RouterError.of(504, "request_expired", "request_expired",
          "request deadline of " + limit + " (serving.request_timeout_s) passed before the first token"));
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

    if (terminal == Terminal.COMPLETED) {
      sink.onComplete();
    } else if (terminal != Terminal.CANCELLED && error != null) {
      sink.onError(error);
    }
    Map<String, Object> row = journalRow(terminal, reason, error, endedIn);
    rt.journal().record(row);
    if (terminal == Terminal.COMPLETED) {
      log.debug("request completed {}", row);
    } else if (terminal != Terminal.CANCELLED) {
      log.warn("request {} {}: {}", requestId, terminal.wireName(), error != null ? error.message() : reason);
    }
  }

  private Map<String, Object> journalRow(
      Terminal terminal, @Nullable String reason, @Nullable RouterError error, RequestState endedIn) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("kind", "request");
    row.put("rid", requestId);
    row.put("client_rid", request.getClientRequestId().isEmpty() ? null : request.getClientRequestId());
    row.put("arrived", rt.arrivalEpochSeconds(arrivalNanos, loop.nanoTime()));
    row.put("route", request.getRoute() == narwhal.proto.v1.Route.ROUTE_CHAT_COMPLETIONS ? "chat" : "completions");
    row.put("stream", request.getStream());
    row.put("ttft_s", ttftNanos < 0 ? null : ttftNanos / 1e9);
    row.put("first_byte_s", firstByteNanos < 0 ? null : firstByteNanos / 1e9);
    row.put("prefill_iid", producer == null ? null : producer.iid());
    row.put("decode_iid", consumer == null ? null : consumer.iid());
    row.put("crossed", producer != null && consumer != null && !producer.iid().equals(consumer.iid()));
    row.put("attempts", attempts);
    row.put("output_len", tokens);
    row.put("terminal", terminal.wireName());
    row.put("reason", reason);
    // Boxed on purpose: with an int literal in the outer branch the conditional unboxes the null
    // of a cancelled request and throws NullPointerException.
    Integer status = terminal == Terminal.COMPLETED ? Integer.valueOf(200) : error == null ? null : error.status();
    row.put("status", status);
    row.put("error_type", error == null ? null : error.type());
    row.put("error_code", error == null ? null : error.code());
    row.put("error", error == null ? null : error.message());
    if (terminal == Terminal.CANCELLED) {
      row.put("cancelled_phase", endedIn == RequestState.RELAY ? "decode" : endedIn.name().toLowerCase());
    }
    row.put("attempt_failures", attemptFailures);
    row.put("duration_s", (loop.nanoTime() - arrivalNanos) / 1e9);
    return row;
  }

  private void recordAttemptFailure(EngineFailure f) {
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
    return new EngineFailure(phase, narwhal.engines.client.FailureClass.INFERENCE_STATUS, 502, "internal",
        "router", "internal error in the " + phase.wireName() + " leg: " + t, false, t);
  }
}
