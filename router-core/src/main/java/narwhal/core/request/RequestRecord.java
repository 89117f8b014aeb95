package narwhal.core.request;

import java.util.List;
import narwhal.api.RouterError;
import narwhal.core.fleet.EngineState;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import narwhal.core.trace.RequestTrace;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * One request's journal row, as a {@link RequestOutcome} (from which the row, the metrics and the
 * log line are all written): built once, when the request ends, from the collaborators the
 * lifecycle kept and the few counts it kept itself ({@link Progress}).
 */
final class RequestRecord {

  /**
   * What the lifecycle counted itself (kept on it because the relay updates some per token).
   *
   * @param promptTokens the router's size of the prompt (estimated or counted)
   * @param enginePromptTokens the prompt's size as an engine reported it, or null
   * @param tokens generated tokens relayed
   * @param ttftNanos time to first token from arrival (the prefill answer), or -1
   * @param firstByteNanos time to the client's first byte from arrival, or -1
   * @param producer the last dispatched attempt's producer, or null
   * @param consumer its consumer, or null
   * @param attempts attempts dispatched
   * @param reportedCachedTokens the cached prompt tokens the producer reported for the last prefill
   *     (the journal's {@code cached_tokens}), or null when it reported none
   */
  record Progress(long promptTokens, @Nullable Long enginePromptTokens, int tokens, long ttftNanos,
      long firstByteNanos, @Nullable EngineState producer, @Nullable EngineState consumer, int attempts,
      @Nullable Long reportedCachedTokens) {}

  private final RouterRuntime rt;
  private final RequestTicket ticket;
  private final CompletionRequest request;
  private final PromptSizing sizing;
  private final RequestTimeline timeline;
  private final AttemptFailures attemptFailures;
  private final FailureBlame blame;
  private final RequestTrace trace;
  private final AttemptLegLog legLog;
  private final FirstAttemptPricing pricing;
  private final PricedPlacement placement;

  RequestRecord(RouterRuntime rt, RequestTicket ticket, CompletionRequest request, PromptSizing sizing,
      RequestTimeline timeline, AttemptFailures attemptFailures, FailureBlame blame, RequestTrace trace,
      AttemptLegLog legLog, FirstAttemptPricing pricing, PricedPlacement placement) {
    this.rt = rt;
    this.ticket = ticket;
    this.request = request;
    this.sizing = sizing;
    this.timeline = timeline;
    this.attemptFailures = attemptFailures;
    this.blame = blame;
    this.trace = trace;
    this.legLog = legLog;
    this.pricing = pricing;
    this.placement = placement;
  }

  /** {@code chat} or {@code completions}: the journal's route. */
  static String routeName(CompletionRequest request) {
    return request.getRoute() == Route.ROUTE_CHAT_COMPLETIONS ? "chat" : "completions";
  }

  /**
   * The outcome of a request that ended {@code terminal} in {@code endedIn} (which names a
   * cancelled request's phase).
   */
  RequestOutcome build(Terminal terminal, @Nullable String reason, @Nullable RouterError error,
      RequestState endedIn, Progress p) {
    long now = ticket.loop().nanoTime();
    long arrivalNanos = ticket.arrival().arrivalNanos();
    PromptSizing.Sized sized = sizing.sized();
    // The best count known: the router's exact one, else the engine's usage, else the estimate.
    Long inputLen = sized == PromptSizing.Sized.EXACT ? Long.valueOf(p.promptTokens())
        : p.enginePromptTokens() != null ? p.enginePromptTokens()
        : sized != null ? Long.valueOf(p.promptTokens()) : null;
    Long wantedLen = request.hasMaxCompletionTokens() ? Long.valueOf(request.getMaxCompletionTokens())
        : request.hasMaxTokens() ? Long.valueOf(request.getMaxTokens()) : null;
    return RequestOutcome.builder(ticket.requestId(), terminal)
        .frontEnd(ticket.arrival().frontEnd().wireName())
        .tenant(ticket.caller().tenant())
        .clientRid(request.getClientRequestId())
        .arrived(rt.arrivalEpochSeconds(arrivalNanos, now))
        .request(routeName(request), request.getStream(), inputLen, wantedLen)
        .outputLen(p.tokens())
        .latency(p.ttftNanos() < 0 ? null : p.ttftNanos(), p.firstByteNanos() < 0 ? null : p.firstByteNanos(),
            timeline.tpotNanos(), timeline.decodeTpotNanos())
        .placement(p.producer() == null ? null : p.producer().iid(), p.consumer() == null ? null : p.consumer().iid())
        .reason(reason)
        .error(error)
        .attempts(p.attempts(), timeline.decodeAttempts(), attemptFailures.entries())
        .retryChain(blame.firstFailedIid(), blame.poisoned())
        .timing(ticket.seat().queueWaitNanos(now), timeline.routerOverheadNanos(),
            now - arrivalNanos, timeline.upstreamNanos())
        .cancelledPhase(terminal == Terminal.CANCELLED ? endedIn.cancelledPhase() : null)
        .legs(trace.traceId(), legLog.entries(terminal))
        .inputSized(sized == null ? null : sized.wireName())
        .admissionPrice(pricing.journalFields())
        // A refused request was priced but never placed: nothing of it ran unserved.
        .unserved(terminal == Terminal.REFUSED ? List.of() : placement.unserved())
        .cache(p.producer() == null ? null : placement.cacheLabel().wireName(),
            p.producer() == null || !placement.prompt().active() ? null : Long.valueOf(placement.predictedCachedTokens()),
            p.reportedCachedTokens())
        .build();
  }
}
