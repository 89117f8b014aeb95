package narwhal.api;

import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * A request's admission, taken by the front-end as soon as the request arrives (for HTTP, when
 * its headers arrive, before the body is read) with {@link CompletionService#admit}.
 *
 * <p>Exactly one of these follows, once, and each ends the ticket: the front-end answers a {@link
 * #refusal()} (the core has already recorded it); or it calls {@link #invalid} for a body it
 * refuses, {@link #abandon()} when the client leaves before the request could be submitted,
 * {@link #expired} when the request's time ran out before it could be submitted, or hands the
 * ticket to {@link CompletionService#submit(AdmissionTicket,
 * narwhal.proto.v1.CompletionRequest, ClientSink)}, after which the core owns it. Call only from
 * {@link #loop()}.
 */
public interface AdmissionTicket {

  /** The router's id for the request, known from arrival (the {@code x-request-id} header). */
  String requestId();

  /** The request's scheduler (its event loop). */
  Scheduler loop();

  /** {@code loop().nanoTime()} at arrival; the request's deadline and latencies count from here. */
  long arrivalNanos();

  /**
   * The error to answer at once when admission refused the request (429 in-flight limit, 503
   * draining), or null when it was admitted or queued.
   */
  @Nullable RouterError refusal();

  /** The body was refused before admission (400, 404, 413): records it and frees the seat. */
  void invalid(RouterError error);

  /** The client went away before the request was submitted: records it and frees the seat. */
  void abandon();

  /**
   * The request's time limit counted from {@link #arrivalNanos()} ({@code
   * serving.request_timeout_s}), or {@link Long#MAX_VALUE} when it has none. It covers everything,
   * the wait for the request's body included: a front-end must not hold the ticket (and its seat)
   * past it while a client is still sending.
   */
  long timeLimitNanos();

  /**
   * The request's time ran out before it could be submitted (e.g. its body never finished
   * arriving): records it as expired ({@code deadline}) with {@code error}, which the front-end
   * answers itself, and frees the seat.
   */
  void expired(RouterError error);

  /** A ticket that admits everything and records nothing: for services without admission. */
  static AdmissionTicket unlimited(String requestId, Scheduler loop, long arrivalNanos) {
    return new AdmissionTicket() {
      @Override
      public String requestId() {
        return requestId;
      }

      @Override
      public Scheduler loop() {
        return loop;
      }

      @Override
      public long arrivalNanos() {
        return arrivalNanos;
      }

      @Override
      public @Nullable RouterError refusal() {
        return null;
      }

      @Override
      public void invalid(RouterError error) {}

      @Override
      public void abandon() {}

      @Override
      public long timeLimitNanos() {
        return Long.MAX_VALUE;
      }

      @Override
      public void expired(RouterError error) {}
    };
  }
}
