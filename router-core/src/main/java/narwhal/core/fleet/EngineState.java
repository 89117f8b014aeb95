package narwhal.core.fleet;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import org.jspecify.annotations.Nullable;

/**
 * The router's live view of one engine: its resident work per phase, its breaker condition and
 * failure streaks, and whether it is temporarily quarantined. Shared by requests on every event
 * loop, hence atomics and a volatile condition; only the health monitor changes the condition.
 */
public final class EngineState {

  private final EngineSpec spec;
  private final AtomicInteger residentPrefill = new AtomicInteger();
  private final AtomicInteger residentDecode = new AtomicInteger();
  // Prompt tokens of the prefills resident here (the backlog admission prices), and KV tokens of
  // the decodes resident here (what the decode interval grows with).
  private final AtomicLong residentPrefillTokens = new AtomicLong();
  private final AtomicLong residentDecodeTokens = new AtomicLong();
  // Σ L² over resident prefills: with the count and Σ L it prices the backlog's quadratic term exactly.
  private final AtomicLong residentPrefillTokenSquares = new AtomicLong();
  // Cumulative, for the per-engine request counters: reservations are taken once per leg.
  private final LongAdder prefillLegs = new LongAdder();
  private final LongAdder decodeLegs = new LongAdder();
  private final AtomicLong quarantinedUntilNanos = new AtomicLong(Long.MIN_VALUE);
  private final FailureStreaks streaks = new FailureStreaks();
  /** Gaps between the tokens of the streams decoding here, for the role controller's decode load. */
  private final DecodePace decodePace = new DecodePace();
  private volatile EngineCondition condition = EngineCondition.ACTIVE;
  /**
   * The role placement gives this engine now: the fleet file's role at start, then whatever the
   * role controller moves it to. Every engine runs kv_both, so this is the router's choice alone.
   */
  private volatile EngineRole role;
  private volatile @Nullable String conditionCause;
  /**
   * Why the last attempt to reach this engine failed before it could answer (connection refused,
   * connect timeout), until any answer proves it reachable again; null while it answers. Kept apart
   * from the streaks because last-engine protection restarts those, and readiness must still see a
   * role whose every engine is down.
   */
  private volatile @Nullable String unreachable;
  /**
   * The resident work other router replicas have published for this engine (their own
   * reservations, as of their last publication), {@link PeerWork#NONE} without a cluster. The
   * resident getters add it to this replica's own live counts, so placement, predictive admission
   * and the role controller price the whole fleet's load; the {@code own…} getters do not.
   */
  private volatile PeerWork peerWork = PeerWork.NONE;

  EngineState(EngineSpec spec) {
    this.spec = spec;
    this.role = spec.role();
  }

  public EngineSpec spec() {
    return spec;
  }

  public String iid() {
    return spec.iid();
  }

  /** The role new placements follow; resident work finishes where it is whatever this says. */
  public EngineRole role() {
    return role;
  }

  /** Set by the role controller only: it owns every role move. */
  public void assignRole(EngineRole newRole) {
    this.role = java.util.Objects.requireNonNull(newRole, "role");
  }

  /** Prefill legs resident on this engine fleet-wide: this replica's plus its peers' latest. */
  public int residentPrefill() {
    return residentPrefill.get() + peerWork.prefill();
  }

  /** Decode legs resident on this engine fleet-wide: this replica's plus its peers' latest. */
  public int residentDecode() {
    return residentDecode.get() + peerWork.decode();
  }

  /** Prompt tokens of the prefill legs resident on this engine, fleet-wide. */
  public long residentPrefillTokens() {
    return residentPrefillTokens.get() + peerWork.prefillTokens();
  }

  /** Σ L² over the prefill legs resident on this engine (L = each one's prompt tokens), fleet-wide. */
  public long residentPrefillTokenSquares() {
    return residentPrefillTokenSquares.get() + peerWork.prefillTokenSquares();
  }

  /** KV tokens (prompt plus wanted output) of the decode legs resident on this engine, fleet-wide. */
  public long residentDecodeTokens() {
    return residentDecodeTokens.get() + peerWork.decodeTokens();
  }

  /** All work placed on this engine and not yet released, fleet-wide. */
  public int residentWork() {
    return residentPrefill() + residentDecode();
  }

  /** This replica's own resident work on this engine: what it publishes to its peers. */
  public PeerWork ownWork() {
    return new PeerWork(residentPrefill.get(), residentDecode.get(), residentPrefillTokens.get(),
        residentPrefillTokenSquares.get(), residentDecodeTokens.get());
  }

  /** Prefill legs this replica itself holds on this engine. */
  public int ownResidentPrefill() {
    return residentPrefill.get();
  }

  /** Decode legs this replica itself holds on this engine. */
  public int ownResidentDecode() {
    return residentDecode.get();
  }

  /** What the other replicas last published for this engine ({@link PeerWork#NONE} alone). */
  public PeerWork peerWork() {
    return peerWork;
  }

  /** Set by the cluster's load view only: the sum of the peers' latest publications. */
  public void peerWork(PeerWork work) {
    this.peerWork = java.util.Objects.requireNonNull(work, "work");
  }

  public FailureStreaks streaks() {
    return streaks;
  }

  /** The observed pace of this engine's decode output (fed by requests, drained by the controller). */
  public DecodePace decodePace() {
    return decodePace;
  }

  public EngineCondition condition() {
    return condition;
  }

  /** Why the breaker took this engine out of placement (e.g. {@code stream}), or null while active. */
  public @Nullable String conditionCause() {
    return conditionCause;
  }

  /** Set by the health monitor only: it owns every breaker decision. */
  public void setCondition(EngineCondition condition, @Nullable String cause) {
    this.conditionCause = cause;
    this.condition = condition;
  }

  /** Why the engine cannot be reached right now, or null when its last contact was an answer. */
  public @Nullable String unreachable() {
    return unreachable;
  }

  /**
   * Set by the health monitor only: the engine answered (what {@code evidence} proves), so the
   * streaks that evidence ends restart and it is reachable again.
   */
  public void answered(FailureStreaks.Evidence evidence) {
    streaks.recordSuccess(evidence);
    unreachable = null;
  }

  /** Set by the health monitor only: a connection-class failure or a missed liveness check. */
  public void markUnreachable(String why) {
    unreachable = why;
  }

  /** True when the breaker lets placement use this engine. */
  public boolean inPlacement() {
    return condition == EngineCondition.ACTIVE;
  }

  public boolean isQuarantined(long nowNanos) {
    return nowNanos < quarantinedUntilNanos.get();
  }

  /** How long this engine stays quarantined from {@code nowNanos} on; 0 when it is not. */
  public long quarantineRemainingNanos(long nowNanos) {
    return Math.max(0, quarantinedUntilNanos.get() - nowNanos);
  }

  /** Keeps this engine out of placement until {@code untilNanos} (never shortens a quarantine). */
  public void quarantineUntil(long untilNanos) {
    quarantinedUntilNanos.accumulateAndGet(untilNanos, Math::max);
  }

  /**
   * Reserves a prefill slot weighing {@code promptTokens} on this engine; the reservation must be
   * released exactly once.
   */
  public Reservation reservePrefill(long promptTokens) {
    prefillLegs.increment();
    return new Reservation(this, residentPrefill, residentPrefillTokens, promptTokens, residentPrefillTokenSquares);
  }

  /**
   * Reserves a prefill slot for a prompt of {@code promptTokens} whose first {@code cachedTokens}
   * the engine's prefix cache holds: it weighs the uncached tokens ({@code L − c}) and their
   * attention ({@code L² − c²}), the work the engine will do. Equal to {@link
   * #reservePrefill(long)} with nothing cached.
   */
  public Reservation reservePrefill(long promptTokens, long cachedTokens) {
    long c = Math.max(0, Math.min(cachedTokens, promptTokens));
    if (c == 0) {
      return reservePrefill(promptTokens);
    }
    prefillLegs.increment();
    long l = Math.max(0, promptTokens);
    return new Reservation(this, residentPrefill, residentPrefillTokens, l - c, residentPrefillTokenSquares,
        l * l - c * c);
  }

  /** Reserves a decode slot weighing {@code kvTokens} (prompt plus wanted output). */
  public Reservation reserveDecode(long kvTokens) {
    decodeLegs.increment();
    return new Reservation(this, residentDecode, residentDecodeTokens, kvTokens, null);
  }

  /** Prefill legs dispatched to this engine so far (each takes one reservation). */
  public long prefillLegsDispatched() {
    return prefillLegs.sum();
  }

  /** Decode legs dispatched to this engine so far. */
  public long decodeLegsDispatched() {
    return decodeLegs.sum();
  }

  @Override
  public String toString() {
    return spec.iid() + "{" + role + ", " + condition.wireName() + ", prefill=" + residentPrefill() + ", decode="
        + residentDecode() + "}";
  }
}
