package narwhal.api;

import narwhal.time.Deadline;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * Everything a front-end knows about a request when it arrives, before it has read the request
 * itself: what {@link CompletionService#admit} decides on. Both front-ends make one as early as
 * they can (HTTP when the headers arrive, gRPC when the call starts), after authenticating the
 * caller, and before reading the body or message.
 *
 * @param loop the request's scheduler: its state, its sink calls and its engine legs run there
 * @param arrivalNanos {@code loop.nanoTime()} at arrival; latencies and the request's deadline
 *     count from here
 * @param requestId the router's id for the request ({@code x-request-id}), known from arrival so
 *     that every answer, a refusal included, carries it
 * @param clientRequestId the client's own id for it ({@code X-Request-Id} sent by the client), or null
 * @param clientDeadline the client's own deadline (a gRPC deadline), or {@link Deadline#NONE}
 * @param caller who the credentials proved the client to be
 * @param frontEnd the front-end that carried it (the journal's {@code front_end})
 * @param trace the client's trace context, as it arrived
 */
public record Arrival(
    Scheduler loop,
    long arrivalNanos,
    String requestId,
    @Nullable String clientRequestId,
    Deadline clientDeadline,
    Caller caller,
    FrontEnd frontEnd,
    TraceContext trace) {

  public Arrival {
    clientRequestId = clientRequestId == null || clientRequestId.isEmpty() ? null : clientRequestId;
  }

  /**
   * A request arriving now on {@code loop}, with a fresh router request id.
   *
   * @param clientDeadlineRemainingNanos what is left of the client's deadline now, or null when
   *     it set none; read after the arrival time, so the request's deadline is never later than
   *     the client's
   */
  public static Arrival now(Scheduler loop, FrontEnd frontEnd, Caller caller, @Nullable String clientRequestId,
      @Nullable Long clientDeadlineRemainingNanos, TraceContext trace) {
    long arrival = loop.nanoTime();
    Deadline client = clientDeadlineRemainingNanos == null ? Deadline.NONE
        : Deadline.client(arrival + clientDeadlineRemainingNanos);
    return new Arrival(loop, arrival, RequestIds.hex32(), clientRequestId, client, caller, frontEnd, trace);
  }
}
