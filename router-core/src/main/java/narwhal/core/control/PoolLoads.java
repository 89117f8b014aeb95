package narwhal.core.control;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Both pools' loads at one monitor tick, and each engine's.
 *
 * @param engines every configured engine, in fleet order
 * @param prefill the prefill pool
 * @param decode the decode pool
 */
record PoolLoads(List<EngineLoad> engines, PrefillPool prefill, DecodePool decode) {

  PoolLoads {
    engines = List.copyOf(engines);
  }

  /**
   * These loads raised to what the window's demand will put on the pools as they are now ({@link
   * DemandProjection}): prefill, the demand's utilization over {@code reactive.utilization};
   * decode, the settled interval's load as {@link LoadSampler} measures it. A pool's load is the
   * larger of measured and projected, so a change of mix shows at once and a pool the demand
   * leaves still shows the work resident on it. Unknown (NaN) loads stay unknown.
   */
  PoolLoads withDemand(DemandProjection demand, double utilization, double tpotS) {
    double p = prefill.load();
    double projectedPrefill = demand.prefillUtilization(prefill.size()) / utilization;
    PrefillPool pressedPrefill = Double.isNaN(p) ? prefill
        : prefill.withLoad(Math.max(p, Math.min(SplitScorer.SATURATED, projectedPrefill)));
    double d = decode.load();
    DecodePool pressedDecode = decode;
    double interval = demand.decodeIntervalS(decode.size());
    if (!Double.isNaN(d) && interval > 0) {
      double floor = decode.floorS();
      double projected = Math.max(0, interval - floor)
          / Math.max(tpotS - floor, LoadSampler.MIN_HEADROOM * tpotS);
      pressedDecode = decode.withLoad(Math.max(d, Math.min(SplitScorer.SATURATED, projected)));
    }
    return new PoolLoads(engines, pressedPrefill, pressedDecode);
  }

  /** True when both pool loads are known: each pool has a profiled engine in placement. */
  boolean priced() {
    return !Double.isNaN(prefill.load()) && !Double.isNaN(decode.load());
  }

  /** True when every engine of both pools is profiled: a load-driven move may be priced. */
  boolean covered() {
    return prefill.profiled() == prefill.size() && decode.profiled() == decode.size();
  }

  @Nullable EngineLoad engine(String iid) {
    for (EngineLoad e : engines) {
      if (e.iid().equals(iid)) {
        return e;
      }
    }
    return null;
  }
}
