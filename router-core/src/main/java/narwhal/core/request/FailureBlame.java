package narwhal.core.request;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import narwhal.core.health.EngineHealthTracker;
import narwhal.core.legs.EngineFailure;
import org.jspecify.annotations.Nullable;

/**
 * Which of a request's failures are the engines' and which are the request's own, and when the
 * engines hear of them (the breaker's streaks and quarantine).
 *
 * <p>A failure a request's content could have caused ({@link FailureSignature}) that will be
 * retried is held back until the request shows whose it is: if a later attempt fails the same
 * way on a different engine of the same role, the request is poisoned and every held failure with
 * that signature is dropped (it stops retrying, and neither engine's streak moves); otherwise each
 * held failure is blamed on its engine when the request next reports a success on that engine,
 * when output becomes visible (no retry can follow), or when the request ends, whichever is first.
 * Holding back costs the breaker at most one attempt's delay. Every other failure is blamed at once.
 *
 * <p>Confined to the request's scheduler.
 */
final class FailureBlame {

  private record Held(EngineFailure failure, @Nullable String producerIid, FailureSignature signature) {}

  private final EngineHealthTracker health;
  private final Consumer<EngineFailure> quarantine;
  private final List<Held> held = new ArrayList<>();
  private @Nullable String firstFailedIid;
  private boolean poisoned;

  /** @param quarantine applies {@code recovery.failure_quarantine_s} to a failure's engine */
  FailureBlame(EngineHealthTracker health, Consumer<EngineFailure> quarantine) {
    this.health = health;
    this.quarantine = quarantine;
  }

  /**
   * A failed attempt before output. Returns true when it makes the request poisoned: it failed
   * the way an earlier attempt failed on another engine of the same role.
   *
   * @param producerIid the attempt's producer when {@code f} is a decode failure, else null
   */
  boolean attemptFailed(EngineFailure f, @Nullable String producerIid) {
    noteFirst(f);
    FailureSignature signature = FailureSignature.of(f);
    if (signature != null) {
      boolean sameWayElsewhere = held.stream().anyMatch(
          h -> h.signature().equals(signature) && !h.failure().engineIid().equals(f.engineIid()));
      if (sameWayElsewhere) {
        poisoned = true;
        held.removeIf(h -> h.signature().equals(signature));
        return true;
      }
      if (f.isTransient()) {
        held.add(new Held(f, producerIid, signature));
        return false;
      }
    }
    blame(f, producerIid);
    return false;
  }

  /** A failure after output was visible: no retry can tell whose it is, so it is the engine's. */
  void failedAfterOutput(EngineFailure f, @Nullable String producerIid) {
    noteFirst(f);
    blameAll();
    blame(f, producerIid);
  }

  /** Before a success on {@code iid} is reported: its held failures came first and count first. */
  void beforeSuccessOn(String iid) {
    for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
      Held h = it.next();
      if (h.failure().engineIid().equals(iid)) {
        it.remove();
        blame(h.failure(), h.producerIid());
      }
    }
  }

  /** Output is visible or the request ends: nothing more can make a held failure the request's. */
  void blameAll() {
    List<Held> all = List.copyOf(held);
    held.clear();
    for (Held h : all) {
      blame(h.failure(), h.producerIid());
    }
  }

  /** The engine whose failure started the request's retries, or null when nothing failed. */
  @Nullable String firstFailedIid() {
    return firstFailedIid;
  }

  boolean poisoned() {
    return poisoned;
  }

  private void noteFirst(EngineFailure f) {
    if (firstFailedIid == null) {
      firstFailedIid = f.engineIid();
    }
  }

  private void blame(EngineFailure f, @Nullable String producerIid) {
    health.legFailed(f, producerIid);
    quarantine.accept(f);
  }
}
