package narwhal.api;

import java.util.Map;
import narwhal.proto.v1.CompletionRequest;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * The router as front-ends see it: one entry point for every front-end, in two steps, as a call
 * starts and then carries its message (grpc-java's {@code ServerCall}, Armeria's one service
 * entry with its options).
 *
 * <ol>
 *   <li>{@link #admit(Arrival)} as soon as the request arrives, before its body or message is
 *       read: the caller is authenticated ({@link #authenticator()}), the {@link Arrival} carries
 *       everything known then (loop, time, the client's deadline, caller, front-end, ids, trace
 *       context), and the answer is a sealed {@link AdmissionTicket}: {@code Refused} (answer it
 *       now) or {@code Admitted} (read the request). An overloaded router therefore refuses
 *       before anything is read, over every front-end alike.
 *   <li>{@link #submit(AdmissionTicket, CompletionRequest, ClientSink)} with the request read from
 *       the wire: the service pins it to the served model, applies the trace context, and runs it;
 *       the outcome arrives on the sink, on the arrival's loop.
 * </ol>
 *
 * <p>Everything a front-end refuses on its own before submitting (a body too large, malformed or
 * late, a client that left) ends the admitted ticket, so the service records every request the
 * same way whichever front-end carried it. Large requests are decoded on the service's one
 * {@link #offLoop()} pool. No method has a default: a service implements every duty, and nothing a
 * front-end passes is silently dropped.
 */
public interface CompletionService {

  /**
   * Admission for a request that has just arrived: a seat, a place in the queue, or a refusal
   * (already recorded). Counts the arrival; computes the request's deadline once (the earlier of
   * the client's and {@code serving.request_timeout_s}), exposed on the ticket. Call on the
   * arrival's loop.
   */
  AdmissionTicket admit(Arrival arrival);

  /**
   * Starts a request admitted by {@link #admit}; the service now owns the ticket and frees its seat
   * when the request ends. A ticket still queued starts once it is seated (or ends with 504 when
   * its deadline passes first); a refused ticket ends at once with its refusal on the sink; a
   * request for another model ends with 404 on the sink (journal {@code invalid}), one for a model
   * the tenant may not use with 403. Never blocks; sink calls always come after this returns.
   *
   * @throws IllegalArgumentException the ticket was issued by another service
   * @throws IllegalStateException the ticket had already ended or been submitted
   */
  RequestHandle submit(AdmissionTicket ticket, CompletionRequest request, ClientSink sink);

  /** Checks client credentials; front-ends call it before {@link #admit}. */
  ClientAuthenticator authenticator();

  /**
   * Records a completion request refused by {@link #authenticator()} (journal {@code invalid},
   * reason {@code unauthenticated}, its {@code rid} the arrival's request id); the front-end answers
   * the client itself with {@code refused.refusal()}, that id ({@code x-request-id}, as on every
   * error answer) and, for a 401, its {@code WWW-Authenticate} challenge.
   */
  void rejectUnauthenticated(Arrival arrival, Authentication refused);

  /** Where large requests are decoded or validated, off the event loops. */
  OffLoopPool offLoop();

  /** The model name this fleet serves. */
  String model();

  /** True when the router admits work (at least one engine per phase is placeable). */
  boolean ready();

  /** Why {@link #ready()} is false, for {@code /ready} and the gRPC health service; null when ready. */
  @Nullable String notReadyReason();

  /**
   * The operator's view for {@code GET /narwhal/state} (schema {@code narwhal.state} v1) as JSON-ready
   * maps and lists, or null when this service has none. {@code loop} supplies the clock.
   */
  @Nullable Map<String, Object> stateDocument(Scheduler loop);
}
