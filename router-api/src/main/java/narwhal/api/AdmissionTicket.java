package narwhal.api;

import narwhal.proto.v1.CompletionRequest;
import narwhal.time.Deadline;
import narwhal.time.Scheduler;

/**
 * A request's admission, from {@link CompletionService#admit}: either {@link Refused} (answer its
 * error at once; the service has recorded it) or {@link Admitted} (seated, or queued for a seat).
 * Sealed: a front-end handles exactly these two, and a service only ever gets back a ticket it
 * issued.
 *
 * <p>An admitted ticket ends exactly once: the front-end hands it to {@link
 * CompletionService#submit} with the request it read, after which the service owns it; or it
 * ends it with {@link Admitted#invalid} (the body was refused), {@link Admitted#abandon} (the
 * client left before the request could be submitted) or {@link Admitted#expired} (its deadline
 * passed first). Call only from the arrival's loop.
 */
public sealed interface AdmissionTicket permits AdmissionTicket.Admitted, AdmissionTicket.Refused {

  /** What the front-end knew at arrival. */
  Arrival arrival();

  /** The request's deadline, computed once at admission; see {@link Deadline}. */
  Deadline deadline();

  /** The router's id for the request (the {@code x-request-id} header). */
  default String requestId() {
    return arrival().requestId();
  }

  /** The request's scheduler (its event loop). */
  default Scheduler loop() {
    return arrival().loop();
  }

  /** Admission refused the request (429 at a limit, 503 draining); the service recorded it. */
  final class Refused implements AdmissionTicket {
    private final Arrival arrival;
    private final Deadline deadline;
    private final RouterError error;

    public Refused(Arrival arrival, Deadline deadline, RouterError error) {
      this.arrival = arrival;
      this.deadline = deadline;
      this.error = error;
    }

    @Override
    public Arrival arrival() {
      return arrival;
    }

    @Override
    public Deadline deadline() {
      return deadline;
    }

    /** The error to answer. */
    public RouterError error() {
      return error;
    }
  }

  /** Admitted: seated, or queued for a seat until the deadline. */
  final class Admitted implements AdmissionTicket {
    private final Arrival arrival;
    private final Deadline deadline;
    private final Owner owner;
    private boolean settled;

    public Admitted(Arrival arrival, Deadline deadline, Owner owner) {
      this.arrival = arrival;
      this.deadline = deadline;
      this.owner = owner;
    }

    @Override
    public Arrival arrival() {
      return arrival;
    }

    @Override
    public Deadline deadline() {
      return deadline;
    }

    /** The body was refused before it could be submitted (400, 404, 413): recorded; the seat is freed. */
    public void invalid(RouterError error) {
      if (settle()) {
        owner.invalid(error);
      }
    }

    /** The client went away before the request was submitted: recorded; the seat is freed. */
    public void abandon() {
      if (settle()) {
        owner.abandon();
      }
    }

    /**
     * The deadline passed before the request could be submitted (e.g. its body never finished
     * arriving): recorded as expired with {@code error}, which the front-end answers; the seat is freed.
     */
    public void expired(RouterError error) {
      if (settle()) {
        owner.expired(error);
      }
    }

    /** Whether the ticket has ended or been submitted. */
    public boolean settled() {
      return settled;
    }

    /**
     * The issuing service's side, taken over by its {@code submit}: the ticket ends here.
     *
     * @throws IllegalArgumentException {@code service} did not issue it
     * @throws IllegalStateException it had already ended or been submitted
     */
    public Owner takeOver(CompletionService service) {
      if (owner.issuer() != service) {
        throw new IllegalArgumentException("ticket " + requestId() + " was not issued by this service");
      }
      if (!settle()) {
        throw new IllegalStateException("request " + requestId() + " already ended; its ticket cannot be submitted");
      }
      return owner;
    }

    private boolean settle() {
      if (settled) {
        return false;
      }
      settled = true;
      return true;
    }
  }

  /**
   * The issuing service's side of an admitted ticket: what happens to the seat and the record for
   * each ending. Front-ends never call it; {@link Admitted} calls it at most once.
   */
  interface Owner {
    /** The service that issued the ticket; only its {@code submit} may take it over. */
    CompletionService issuer();

    void invalid(RouterError error);

    void abandon();

    void expired(RouterError error);

    /** Starts the request; the service now owns the seat. */
    RequestHandle start(CompletionRequest request, ClientSink sink);
  }
}
