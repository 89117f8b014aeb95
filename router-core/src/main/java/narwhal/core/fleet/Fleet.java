package narwhal.core.fleet;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import narwhal.config.EngineSpec;
import org.jspecify.annotations.Nullable;

/**
 * The engines the router places work on, and the placement rule.
 *
 * <p>Placement: among the engines able to run a phase, not excluded for this request, pick the one
 * with the least resident work (ties go to the lowest iid). Decode avoids the producer unless no
 * other decode engine fits, and pairs only engines that speak the same dialect. Engines the breaker
 * holds or ejects are skipped; quarantined engines are skipped while another engine covers the
 * role. Thread-safe: counts are atomics and the engine list never changes after construction.
 */
public final class Fleet {

  private static final Comparator<EngineState> LEAST_LOADED =
      Comparator.comparingInt(EngineState::residentWork).thenComparing(EngineState::iid);

  private final Map<String, EngineState> engines = new LinkedHashMap<>();

  public Fleet(Collection<EngineSpec> specs) {
    for (EngineSpec spec : specs) {
      engines.put(spec.iid(), new EngineState(spec));
    }
  }

  public Collection<EngineState> engines() {
    return engines.values();
  }

  public @Nullable EngineState get(String iid) {
    return engines.get(iid);
  }

  /** The prefill engine for a new attempt, or null when every capable engine is excluded. */
  public @Nullable EngineState pickPrefill(Set<String> excluded, long nowNanos) {
    return pick(e -> e.spec().role().canPrefill() && e.inPlacement() && !excluded.contains(e.iid()), nowNanos);
  }

  /** The decode engine for {@code producerIid}'s handoff, or null when none is left. */
  public @Nullable EngineState pickDecode(String producerIid, Set<String> excluded, long nowNanos) {
    EngineState producer = engines.get(producerIid);
    // A handoff only works between engines that speak the same dialect.
    String dialect = producer == null ? null : producer.spec().dialect();
    Predicate<EngineState> capable = e -> e.spec().role().canDecode() && e.inPlacement()
        && !excluded.contains(e.iid()) && (dialect == null || dialect.equals(e.spec().dialect()));
    EngineState other = pick(capable.and(e -> !e.iid().equals(producerIid)), nowNanos);
    return other != null ? other : pick(capable, nowNanos);
  }

  /** True when some engine in placement can prefill and some engine in placement can decode. */
  public boolean coversBothPhases() {
    return schedulable(true) > 0 && schedulable(false) > 0;
  }

  /** Engines in placement able to run prefill ({@code prefill} true) or decode. */
  public int schedulable(boolean prefill) {
    int n = 0;
    for (EngineState e : engines.values()) {
      if (e.inPlacement() && (prefill ? e.spec().role().canPrefill() : e.spec().role().canDecode())) {
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
    boolean prefillCovered = !engine.spec().role().canPrefill();
    boolean decodeCovered = !engine.spec().role().canDecode();
    for (EngineState e : engines.values()) {
      if (e != engine && e.inPlacement()) {
        prefillCovered |= e.spec().role().canPrefill();
        decodeCovered |= e.spec().role().canDecode();
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

  private @Nullable EngineState pick(Predicate<EngineState> eligible, long nowNanos) {
    List<EngineState> candidates = new ArrayList<>();
    for (EngineState e : engines.values()) {
      if (eligible.test(e)) {
        candidates.add(e);
      }
    }
    // Quarantine holds an engine out only while its role stays covered by someone else.
    List<EngineState> healthy = candidates.stream().filter(e -> !e.isQuarantined(nowNanos)).toList();
    List<EngineState> pool = healthy.isEmpty() ? candidates : healthy;
    return pool.stream().min(LEAST_LOADED).orElse(null);
  }
}
