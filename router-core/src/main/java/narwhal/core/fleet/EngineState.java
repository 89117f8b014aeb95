package narwhal.core.fleet;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import narwhal.config.EngineSpec;

/**
 * The router's live view of one engine: its resident work per phase and whether it is
 * temporarily quarantined. Shared by requests on every event loop, hence atomics.
 */
public final class EngineState {

  private final EngineSpec spec;
  private final AtomicInteger residentPrefill = new AtomicInteger();
  private final AtomicInteger residentDecode = new AtomicInteger();
  private final AtomicLong quarantinedUntilNanos = new AtomicLong(Long.MIN_VALUE);

  EngineState(EngineSpec spec) {
    this.spec = spec;
  }

  public EngineSpec spec() {
    return spec;
  }

  public String iid() {
    return spec.iid();
  }

  public int residentPrefill() {
    return residentPrefill.get();
  }

  public int residentDecode() {
    return residentDecode.get();
  }

  /** All work the router has placed on this engine and not yet released. */
  public int residentWork() {
    return residentPrefill.get() + residentDecode.get();
  }

  public boolean isQuarantined(long nowNanos) {
    return nowNanos < quarantinedUntilNanos.get();
  }

  /** Keeps this engine out of placement until {@code untilNanos} (never shortens a quarantine). */
  public void quarantineUntil(long untilNanos) {
    quarantinedUntilNanos.accumulateAndGet(untilNanos, Math::max);
  }

  /** Reserves a phase slot on this engine; the reservation must be released exactly once. */
  public Reservation reservePrefill() {
    return new Reservation(this, residentPrefill);
  }

  public Reservation reserveDecode() {
    return new Reservation(this, residentDecode);
  }

  @Override
  public String toString() {
    return spec.iid() + "{" + spec.role() + ", prefill=" + residentPrefill + ", decode=" + residentDecode + "}";
  }
}
