package narwhal.http;

import java.util.concurrent.TimeUnit;
import narwhal.api.AdmissionTicket;
import narwhal.time.Timer;

/**
 * An admitted request whose body is still arriving: its admission ticket, and the deadline that
 * bounds the upload by what is left of the request's own deadline. The seat is held from the
 * headers on, so a client that sends headers then stalls must not keep it past the time the request
 * could have run in all. Confined to the connection's event loop.
 */
final class AdmittedUpload {

  private final AdmissionTicket ticket;
  private Timer deadline = Timer.NONE;

  private AdmittedUpload(AdmissionTicket ticket) {
    this.ticket = ticket;
  }

  /** Starts the upload; {@code onTimeout} runs on the ticket's loop if the body is late. */
  static AdmittedUpload start(AdmissionTicket ticket, Runnable onTimeout) {
    AdmittedUpload upload = new AdmittedUpload(ticket);
    long limit = ticket.timeLimitNanos();
    if (limit != Long.MAX_VALUE) {
      long remaining = ticket.arrivalNanos() + limit - ticket.loop().nanoTime();
      upload.deadline = ticket.loop().schedule(onTimeout, Math.max(0, remaining), TimeUnit.NANOSECONDS);
    }
    return upload;
  }

  /** The request leaves the connection's hands (submitted or ended): the deadline goes with it. */
  AdmissionTicket take() {
    deadline.cancel();
    deadline = Timer.NONE;
    return ticket;
  }
}
