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
