package narwhal.core.api;

import narwhal.core.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * A request's admission, taken by the front-end as soon as the request arrives (for HTTP, when
 * its headers arrive, before the body is read) with {@link CompletionService#admit}.
 *
 * <p>Exactly one of these follows, once, and each ends the ticket: the front-end answers a {@link
 * #refusal()} (the core has already recorded it); or it calls {@link #invalid} for a body it
 * refuses, {@link #abandon()} when the client leaves before the request could be submitted, or
 * hands the ticket to {@link CompletionService#submit(AdmissionTicket,
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
    };
  }
}
