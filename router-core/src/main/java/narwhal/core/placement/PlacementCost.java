package narwhal.core.placement;

import narwhal.config.SloConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillBacklog;
import narwhal.core.profile.ProfileBook;

/**
 * What an engine would cost one request, projected from its profile ({@link ProfileBook}) and the
 * work the router has placed on it:
 *
 * <ul>
 *   <li>prefill: {@link #backlogSeconds} (the resident prefills' predicted time, {@link
 *       PrefillBacklog}) plus {@link #ownPrefillSeconds} (this prompt's), together the projected
 *       time to first token less what the request already waited;
 *   <li>decode: {@link #decodeIntervalSeconds}, the interval between tokens the engine's decode
 *       model predicts with this request's KV tokens and sequence added to what is resident.
 * </ul>
 *
 * Every projection is NaN for an engine without a profile: such an engine cannot be priced. The
 * targets are {@code slo.ttft_s} and {@code slo.tpot_s}. Thread-safe and allocation-free: it reads
 * the book's immutable snapshot and the engines' counters.
 */
public final class PlacementCost {

  private final ProfileBook profiles;
  private final double ttftS;
  private final double tpotS;

  public PlacementCost(ProfileBook profiles, SloConfig slo) {
    this.profiles = profiles;
    this.ttftS = slo.ttftS();
    this.tpotS = slo.tpotS();
  }

  public ProfileBook profiles() {
    return profiles;
  }

  /** {@code slo.ttft_s}: what a prefill placement aims to meet. */
  public double ttftS() {
    return ttftS;
  }

  /** {@code slo.tpot_s}: what a decode placement aims to meet. */
  public double tpotS() {
    return tpotS;
  }

  /** True when {@code engine} has a profile to price with. */
  public boolean profiled(EngineState engine) {
    return profiles.get(engine.iid()) != null;
  }

  /** Seconds of prefill work already resident on {@code engine}; NaN without a profile. */
  public double backlogSeconds(EngineState engine) {
    EngineProfile p = profiles.get(engine.iid());
    return p == null ? Double.NaN : PrefillBacklog.seconds(engine, p.prefill());
  }

  /** Seconds {@code engine} takes to prefill {@code promptTokens} on its own; NaN without a profile. */
  public double ownPrefillSeconds(EngineState engine, long promptTokens) {
    EngineProfile p = profiles.get(engine.iid());
    return p == null ? Double.NaN : p.prefill().seconds(promptTokens);
  }

  /**
   * Seconds {@code engine} takes to prefill {@code promptTokens} of which its prefix cache holds
   * {@code cachedTokens}: only the uncached part is computed ({@link
   * narwhal.core.profile.PrefillModel#seconds(long, long)}); NaN without a profile.
   */
  public double ownPrefillSeconds(EngineState engine, long promptTokens, long cachedTokens) {
    EngineProfile p = profiles.get(engine.iid());
    return p == null ? Double.NaN : p.prefill().seconds(promptTokens, cachedTokens);
  }

  /** As {@link #prefillSeconds(EngineState, long)}, pricing only the uncached part of the prompt. */
  public double prefillSeconds(EngineState engine, long promptTokens, long cachedTokens) {
    EngineProfile p = profiles.get(engine.iid());
    return p == null ? Double.NaN
        : PrefillBacklog.seconds(engine, p.prefill()) + p.prefill().seconds(promptTokens, cachedTokens);
  }

  /**
   * Backlog plus own prefill: the time to first token {@code engine} would give a request of
   * {@code promptTokens} placed on it now, not counting what the request waited before; NaN
   * without a profile.
   */
  public double prefillSeconds(EngineState engine, long promptTokens) {
    EngineProfile p = profiles.get(engine.iid());
    return p == null ? Double.NaN
        : PrefillBacklog.seconds(engine, p.prefill()) + p.prefill().seconds(promptTokens);
  }

  /**
   * The decode interval {@code engine} would run at with one more sequence of {@code kvTokens} KV
   * tokens (prompt plus wanted output) resident; NaN without a profile.
   */
  public double decodeIntervalSeconds(EngineState engine, long kvTokens) {
    EngineProfile p = profiles.get(engine.iid());
    return p == null ? Double.NaN
        : p.decode().intervalSeconds(engine.residentDecodeTokens() + Math.max(0, kvTokens), engine.residentDecode() + 1);
  }

  /**
   * True when every engine in placement that can prefill now has a profile, so prefill placement
   * can be priced; false with any unprofiled candidate (placement then stays least-resident-work,
   * as without profiles: an unpriced engine cannot be ranked against priced ones).
   */
  public boolean pricesPrefill(Fleet fleet) {
    return covers(fleet, true);
  }

  /** As {@link #pricesPrefill}, for the engines in placement that can decode now. */
  public boolean pricesDecode(Fleet fleet) {
    return covers(fleet, false);
  }

  private boolean covers(Fleet fleet, boolean prefill) {
    if (profiles.isEmpty()) {
      return false;
    }
    boolean any = false;
    for (EngineState e : fleet.engines()) {
      if (e.inPlacement() && (prefill ? e.role().canPrefill() : e.role().canDecode())) {
        if (!profiled(e)) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }
}
