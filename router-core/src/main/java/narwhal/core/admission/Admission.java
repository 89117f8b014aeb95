package narwhal.core.admission;

import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * The router's in-flight limit, its FIFO wait queue, and draining.
 *
 * <p>A request takes a {@link Seat} when it arrives. While fewer than {@code maxInFlight} seats are
 * held it is seated at once; otherwise it joins the queue if there is room (and waits at most
 * the queue timeout, on its own scheduler's timer), or is refused with {@link
 * Seat.Refusal#INFLIGHT_LIMIT}. A released seat passes straight to the head of the queue, so the
 * in-flight count never dips below the limit while requests wait. Once {@link #drain()} is called
 * every new request is refused with {@link Seat.Refusal#DRAINING}; those already seated or queued
 * carry on, and {@link #whenIdle()} completes when the last of them is gone.
 *
 * <p>Thread-safe: requests on every event loop share one instance. The lock guards counters only;
 * no callback runs while it is held.
 */
public final class Admission {

  private final AdmissionLimits limits;
  private final ArrayDeque<Seat> queue = new ArrayDeque<>();
  private final CompletableFuture<Void> idle = new CompletableFuture<>();
  private int inFlight;
  private boolean draining;
  /** True while the breaker holds admission for a whole-wave engine restart. */
  private volatile BooleanSupplier fleetHeld = () -> false;
  /** True while the router's monitoring is degraded. */
  private volatile BooleanSupplier degraded = () -> false;

  public Admission(AdmissionLimits limits) {
    this.limits = limits;
  }

  public AdmissionLimits limits() {
    return limits;
  }

  /**
   * Takes a seat for a request arriving on {@code loop}.
   *
   * @param maxWaitNanos the longest this request may queue (its remaining deadline); the queue
   *     timeout applies too, whichever is shorter
   */
  public Seat acquire(Scheduler loop, long maxWaitNanos) {
    long now = loop.nanoTime();
    Seat seat = new Seat(this, loop, now);
    synchronized (this) {
      if (draining) {
        seat.state = Seat.State.REFUSED;
        seat.refusal = Seat.Refusal.DRAINING;
      } else if (fleetHeld.getAsBoolean()) {
        seat.state = Seat.State.REFUSED;
        seat.refusal = Seat.Refusal.FLEET_RESTARTING;
      } else if (degraded.getAsBoolean()) {
        seat.state = Seat.State.REFUSED;
        seat.refusal = Seat.Refusal.MONITORING_DEGRADED;
      } else if (inFlight < limits.maxInFlight()) {
        inFlight++;
        seat.state = Seat.State.SEATED;
        seat.seatedNanos = now;
      } else if (queue.size() < limits.queueCapacity()) {
        seat.state = Seat.State.QUEUED;
        seat.wasQueued = true;
        queue.add(seat);
        long timeout = limits.queueTimeoutNanos() > 0
            ? Math.min(limits.queueTimeoutNanos(), maxWaitNanos) : maxWaitNanos;
        // Armed under the lock so a seat granted at once cannot miss cancelling it.
        seat.expiry = loop.schedule(() -> expire(seat), Math.max(0, timeout), TimeUnit.NANOSECONDS);
      } else {
        seat.state = Seat.State.REFUSED;
        seat.refusal = Seat.Refusal.INFLIGHT_LIMIT;
      }
    }
    return seat;
  }

  /**
   * Refuses every new request with {@link Seat.Refusal#FLEET_RESTARTING} while {@code held} is
   * true (the breaker's whole-wave restart hold); requests already seated or queued carry on.
   */
  public void holdWhile(BooleanSupplier held) {
    this.fleetHeld = held;
  }

  /**
   * Refuses every new request with {@link Seat.Refusal#MONITORING_DEGRADED} while {@code
   * degradedNow} is true; requests already seated or queued carry on.
   */
  public void stopWhileDegraded(BooleanSupplier degradedNow) {
    this.degraded = degradedNow;
  }

  /** Stops admitting: every later {@link #acquire} is refused with {@link Seat.Refusal#DRAINING}. */
  public void drain() {
    synchronized (this) {
      draining = true;
    }
    completeIfIdle();
  }

  public synchronized boolean isDraining() {
    return draining;
  }

  /** Seats held right now. */
  public synchronized int inFlight() {
    return inFlight;
  }

  /** Requests waiting for a seat right now. */
  public synchronized int queued() {
    return queue.size();
  }

  /** Completes once the router drains and no request holds or waits for a seat. */
  public CompletableFuture<Void> whenIdle() {
    completeIfIdle();
    return idle;
  }

  void whenSeated(Seat seat, Runnable onSeated, Runnable onExpired) {
    Runnable now = null;
    synchronized (this) {
      switch (seat.state) {
        case QUEUED:
          seat.onSeated = onSeated;
          seat.onExpired = onExpired;
          return;
        case SEATED:
          now = onSeated;
          break;
        case EXPIRED:
          now = onExpired;
          break;
        default:
          return;
      }
    }
    seat.loop.execute(now);
  }

  void release(Seat seat) {
    Seat next = null;
    Runnable nextStart = null;
    synchronized (this) {
      switch (seat.state) {
        case SEATED:
          next = queue.poll();
          if (next == null) {
            inFlight--;
          } else {
            // The seat passes to the head of the queue; the in-flight count stays the same.
            next.state = Seat.State.SEATED;
            next.seatedNanos = next.loop.nanoTime();
            nextStart = next.onSeated;
            next.onSeated = null;
            next.onExpired = null;
          }
          break;
        case QUEUED:
          queue.remove(seat);
          seat.expiry.cancel();
          break;
        default:
          break;
      }
      seat.state = Seat.State.RELEASED;
      seat.onSeated = null;
      seat.onExpired = null;
    }
    if (next != null) {
      next.expiry.cancel();
      if (nextStart != null) {
        next.loop.execute(nextStart);
      }
    }
    completeIfIdle();
  }

  private void expire(Seat seat) {
    @Nullable Runnable onExpired;
    synchronized (this) {
      if (seat.state != Seat.State.QUEUED) {
        return;
      }
      queue.remove(seat);
      seat.state = Seat.State.EXPIRED;
      onExpired = seat.onExpired;
      seat.onSeated = null;
      seat.onExpired = null;
    }
    // Timers run on the seat's own scheduler: already the right thread.
    if (onExpired != null) {
      onExpired.run();
    }
    completeIfIdle();
  }

  private void completeIfIdle() {
    boolean done;
    synchronized (this) {
      done = draining && inFlight == 0 && queue.isEmpty();
    }
    if (done) {
      idle.complete(null);
    }
  }
}
