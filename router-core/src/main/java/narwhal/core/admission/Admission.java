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
    return acquire(loop, maxWaitNanos, null);
  }

  /**
   * As {@link #acquire(Scheduler, long)} for a request of the tenant {@code quota} limits: the
   * tenant's in-flight limit, queue share and request rate are checked as well as the fleet's,
   * and the seat counts against them until it is released. A request the fleet refuses takes no
   * token from its tenant's bucket.
   */
  public Seat acquire(Scheduler loop, long maxWaitNanos, @Nullable TenantQuota quota) {
    long now = loop.nanoTime();
    Seat seat = new Seat(this, loop, now, quota == null ? null : quota.tenant());
    synchronized (this) {
      boolean seatFree = inFlight < limits.maxInFlight();
      if (draining) {
        refuse(seat, Seat.Refusal.DRAINING);
      } else if (fleetHeld.getAsBoolean()) {
        refuse(seat, Seat.Refusal.FLEET_RESTARTING);
      } else if (degraded.getAsBoolean()) {
        refuse(seat, Seat.Refusal.MONITORING_DEGRADED);
      } else if (quota != null && quota.atInFlightLimit()) {
        refuse(seat, Seat.Refusal.TENANT_INFLIGHT);
        quota.demand().atLimit(quota, ShareDemand.Kind.SEATS);
      } else if (!seatFree && queue.size() >= limits.queueCapacity()) {
        refuse(seat, Seat.Refusal.INFLIGHT_LIMIT);
      } else if (!seatFree && quota != null && quota.queueShareFull()) {
        refuse(seat, Seat.Refusal.TENANT_QUEUE);
      } else if (quota != null && (seat.retryAfterNanos = quota.takeToken(now)) > 0) {
        refuse(seat, Seat.Refusal.TENANT_RATE);
        quota.demand().atLimit(quota, ShareDemand.Kind.RATE);
      } else if (seatFree) {
        inFlight++;
        seat.state = Seat.State.SEATED;
        seat.seatedNanos = now;
        hold(seat, quota, false);
      } else {
        seat.state = Seat.State.QUEUED;
        seat.wasQueued = true;
        queue.add(seat);
        hold(seat, quota, true);
        long timeout = limits.queueTimeoutNanos() > 0
            ? Math.min(limits.queueTimeoutNanos(), maxWaitNanos) : maxWaitNanos;
        // Armed under the lock so a seat granted at once cannot miss cancelling it.
        seat.expiry = loop.schedule(() -> expire(seat), Math.max(0, timeout), TimeUnit.NANOSECONDS);
      }
    }
    return seat;
  }

  private static void refuse(Seat seat, Seat.Refusal refusal) {
    seat.state = Seat.State.REFUSED;
    seat.refusal = refusal;
  }

  /** The seat counts against its tenant's limits from now until it leaves; under the lock. */
  private static void hold(Seat seat, @Nullable TenantQuota quota, boolean queued) {
    seat.quota = quota;
    if (quota != null) {
      quota.held++;
      if (queued) {
        quota.queued++;
      }
    }
  }

  /** The seat leaves its tenant's counts (released or expired); under the lock. */
  private static void unhold(Seat seat, boolean wasWaiting) {
    TenantQuota quota = seat.quota;
    if (quota != null) {
      quota.held--;
      if (wasWaiting) {
        quota.queued--;
      }
    }
  }

  /** A queued seat was granted: it no longer takes a place in its tenant's queue share. */
  private static void seated(Seat seat) {
    if (seat.quota != null) {
      seat.quota.queued--;
    }
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

  /**
   * Sets how many seats this router may give {@code quota}'s tenant (its share of the tenant's
   * {@code max_in_flight} when replicas share it). A share is never set below the seats the tenant
   * holds here now: the result is what was applied, so a replica gives back only seats it does
   * not use.
   */
  public synchronized int resizeTenantSeats(TenantQuota quota, int seats) {
    int applied = Math.max(Math.max(0, seats), quota.held);
    quota.seatLimit = applied;
    return applied;
  }

  /** The seats (held or queued) {@code quota}'s tenant has at this router now. */
  public synchronized int tenantHeld(TenantQuota quota) {
    return quota.held;
  }

  /** The seats this router may give {@code quota}'s tenant now. */
  public synchronized int tenantSeatLimit(TenantQuota quota) {
    return quota.seatLimit;
  }

  /** Keeps {@code fraction} of {@code quota}'s tenant's rate and burst at this router (see {@link TokenBucket#rescale}). */
  public synchronized void rescaleTenantRate(TenantQuota quota, double fraction, long nowNanos) {
    TokenBucket bucket = quota.rate();
    if (bucket != null) {
      bucket.rescale(fraction, nowNanos);
    }
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
          unhold(seat, false);
          next = queue.poll();
          if (next == null) {
            inFlight--;
          } else {
            // The seat passes to the head of the queue; the in-flight count stays the same.
            next.state = Seat.State.SEATED;
            seated(next);
            next.seatedNanos = next.loop.nanoTime();
            nextStart = next.onSeated;
            next.onSeated = null;
            next.onExpired = null;
          }
          break;
        case QUEUED:
          queue.remove(seat);
          unhold(seat, true);
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
      unhold(seat, true);
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
