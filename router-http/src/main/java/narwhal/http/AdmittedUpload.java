package narwhal.http;

import java.util.concurrent.TimeUnit;
import narwhal.api.AdmissionTicket;
import narwhal.time.Timer;

/**
 * An admitted request whose body is still arriving: its admission ticket, and a timer at the
 * request's deadline (computed at admission). The seat is held from the headers on, so a client
 * that sends headers then stalls must not keep it past the time the request could have run in all.
 * Confined to the connection's event loop.
 */
final class AdmittedUpload {

  private final AdmissionTicket.Admitted ticket;
  private Timer deadline = Timer.NONE;

  private AdmittedUpload(AdmissionTicket.Admitted ticket) {
    this.ticket = ticket;
  }

  /** Starts the upload; {@code onTimeout} runs on the ticket's loop if the body is late. */
  static AdmittedUpload start(AdmissionTicket.Admitted ticket, Runnable onTimeout) {
    AdmittedUpload upload = new AdmittedUpload(ticket);
    if (ticket.deadline().isSet()) {
      long remaining = ticket.deadline().remainingNanos(ticket.loop().nanoTime());
      upload.deadline = ticket.loop().schedule(onTimeout, Math.max(0, remaining), TimeUnit.NANOSECONDS);
    }
    return upload;
  }

  /** The request leaves the connection's hands (submitted or ended): the deadline goes with it. */
  AdmissionTicket.Admitted take() {
    deadline.cancel();
    deadline = Timer.NONE;
    return ticket;
  }
}
