package narwhal.core.fleet;

import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import narwhal.config.EngineSpec;
import org.jspecify.annotations.Nullable;

/**
 * The engines the router places work on, and the placement rule.
 *
 * <p>Placement: among the engines able to run a phase, pick the one with the least resident work
 * (ties go to the lowest iid), or, when the caller prices placement, the first by its ranking
 * ({@code narwhal.core.placement}). Engines the breaker holds or ejects are never picked. Everything
 * else is a preference, tried in order, that never leaves a role empty: an engine the request has
 * not been told to avoid (it already failed the request, or produced the handoff of a decode that
 * failed) over one it has; for decode, then an engine other than the producer; and within each of
 * those, an engine not quarantined over a quarantined one. Decode pairs only engines that speak the same
 * dialect. Thread-safe: counts are atomics and the engine list never changes after construction.
 */
public final class Fleet {

  private static final Comparator<EngineState> LEAST_LOADED =
      Comparator.comparingInt(EngineState::residentWork).thenComparing(EngineState::iid);

  /** Tier requirement: an engine the request was not told to avoid. */
  private static final int NOT_AVOIDED = 1;
  /** Tier requirement: an engine other than the handoff's producer. */
  private static final int NOT_PRODUCER = 2;
  /** The tiers, narrowest preference first; the last (0) requires nothing beyond being capable. */
  private static final int[] PREFILL_TIERS = {NOT_AVOIDED, 0};
  private static final int[] DECODE_TIERS = {NOT_AVOIDED | NOT_PRODUCER, NOT_AVOIDED, NOT_PRODUCER, 0};

  private final Map<String, EngineState> engines = new LinkedHashMap<>();
  /** The engines in fleet-file order, for placement's loops (no iterator per pick). */
  private final EngineState[] ordered;
  /** Requests offered to the fleet, for the role controller's demand evidence. */
  private final ArrivalTally arrivals = new ArrivalTally();
  /** The role moves the controller applied, for the state endpoint. */
  private final RoleHistory roleHistory = new RoleHistory();

  public Fleet(Collection<EngineSpec> specs) {
    for (EngineSpec spec : specs) {
      engines.put(spec.iid(), new EngineState(spec));
    }
    ordered = engines.values().toArray(EngineState[]::new);
  }

  public Collection<EngineState> engines() {
    return engines.values();
  }

  public @Nullable EngineState get(String iid) {
    return engines.get(iid);
  }

  /** Where requests count themselves as they start (the role controller drains it). */
  public ArrivalTally arrivals() {
    return arrivals;
  }

  /** The role controller's moves and status. */
  public RoleHistory roleHistory() {
    return roleHistory;
  }

  /**
   * The prefill engine for a new attempt, preferring engines not in {@code avoid}; null only when
   * no engine in placement can prefill.
   */
  public @Nullable EngineState pickPrefill(Set<String> avoid, long nowNanos) {
    return pickPrefill(avoid, nowNanos, LEAST_LOADED);
  }

  /**
   * As {@link #pickPrefill(Set, long)}, ranking the engines of each tier by {@code rank} instead of
   * least resident work (priced placement: {@code narwhal.core.placement}); filters and
   * preferences are the same.
   */
  public @Nullable EngineState pickPrefill(Set<String> avoid, long nowNanos, Comparator<EngineState> rank) {
    return pick(nowNanos, rank, PREFILL_TIERS, true, avoid, null, null);
  }

  /**
   * The decode engine for {@code producerIid}'s handoff, preferring engines not in {@code avoid},
   * then engines other than the producer; null only when no engine in placement can decode it.
   */
  public @Nullable EngineState pickDecode(String producerIid, Set<String> avoid, long nowNanos) {
    return pickDecode(producerIid, avoid, nowNanos, LEAST_LOADED);
  }

  /** As {@link #pickDecode(String, Set, long)}, ranking each tier by {@code rank}. */
  public @Nullable EngineState pickDecode(
      String producerIid, Set<String> avoid, long nowNanos, Comparator<EngineState> rank) {
    EngineState producer = engines.get(producerIid);
    // A handoff only works between engines that speak the same dialect: not a preference.
    String dialect = producer == null ? null : producer.spec().dialect();
    return pick(nowNanos, rank, DECODE_TIERS, false, avoid, producerIid, dialect);
  }

  /** True when some engine in placement can prefill and some engine in placement can decode. */
  public boolean coversBothPhases() {
    return schedulable(true) > 0 && schedulable(false) > 0;
  }

  /**
   * The engines in placement that can run {@code prefill} (else decode) and answered their last
   * contact; fewer than {@link #schedulable} while some are down but not yet taken out.
   */
  public int reachable(boolean prefill) {
    int n = 0;
    for (EngineState e : engines.values()) {
      if (e.inPlacement() && e.unreachable() == null
          && (prefill ? e.role().canPrefill() : e.role().canDecode())) {
        n++;
      }
    }
    return n;
  }

  /** Engines in placement able to run prefill ({@code prefill} true) or decode. */
  public int schedulable(boolean prefill) {
    int n = 0;
    for (EngineState e : engines.values()) {
      if (e.inPlacement() && (prefill ? e.role().canPrefill() : e.role().canDecode())) {
        n++;
      }
    }
    return n;
  }

  /**
   * True when every phase {@code engine} can run is also covered by some other engine in
   * placement: the breaker may take {@code engine} out without leaving a role empty.
   */
  public boolean othersCover(EngineState engine) {
    boolean prefillCovered = !engine.role().canPrefill();
    boolean decodeCovered = !engine.role().canDecode();
    for (EngineState e : engines.values()) {
      if (e != engine && e.inPlacement()) {
        prefillCovered |= e.role().canPrefill();
        decodeCovered |= e.role().canDecode();
      }
    }
    return prefillCovered && decodeCovered;
  }

  public int totalResidentPrefill() {
    return engines.values().stream().mapToInt(EngineState::residentPrefill).sum();
  }

  public int totalResidentDecode() {
    return engines.values().stream().mapToInt(EngineState::residentDecode).sum();
  }

  /**
   * The first engine by {@code rank} of the first non-empty tier, each tier a narrower preference
   * than the next. Within a tier, quarantine holds an engine out only while another engine of the
   * tier covers it (a quarantined engine the request has not failed beats one it has). Allocates
   * nothing: tiers are bit masks and the engines an array.
   */
  private @Nullable EngineState pick(long nowNanos, Comparator<EngineState> rank, int[] tiers, boolean prefill,
      Set<String> avoid, @Nullable String producerIid, @Nullable String dialect) {
    for (int tier : tiers) {
      EngineState healthy = null;
      EngineState any = null;
      for (EngineState e : ordered) {
        if (!capable(e, prefill, dialect)
            || ((tier & NOT_AVOIDED) != 0 && avoid.contains(e.iid()))
            || ((tier & NOT_PRODUCER) != 0 && e.iid().equals(producerIid))) {
          continue;
        }
        if (any == null || rank.compare(e, any) < 0) {
          any = e;
        }
        if (!e.isQuarantined(nowNanos) && (healthy == null || rank.compare(e, healthy) < 0)) {
          healthy = e;
        }
      }
      if (any != null) {
        return healthy != null ? healthy : any;
      }
    }
    return null;
  }

  /** In placement and able to run the phase now; for decode, of the producer's dialect when known. */
  private static boolean capable(EngineState e, boolean prefill, @Nullable String dialect) {
    return (prefill ? e.role().canPrefill() : e.role().canDecode()) && e.inPlacement()
        && (prefill || dialect == null || dialect.equals(e.spec().dialect()));
  }
}
