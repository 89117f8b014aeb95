package narwhal.core.control;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import narwhal.config.EngineRole;
import narwhal.core.fleet.EngineState;
import org.jspecify.annotations.Nullable;

/**
 * Keeps both pools staffed when engines leave placement (ejections, holds). One step per monitor
 * pass, first match wins:
 *
 * <ol>
 *   <li>{@code fallback_restored}: an engine this class gave both roles returns to its own role
 *       once another engine in placement covers the role it stood in for;
 *   <li>{@code floor_repair}: a pool below its floor ({@code min_prefill}, {@code min_decode}) or
 *       empty takes the cheapest flip ({@link FlipCost}) of the other pool's unpinned engines in
 *       placement, when that pool keeps its own floor and at least one engine;
 *   <li>{@code empty_role_fallback}: a pool left with no engine at all, which no repair could
 *       staff, falls back to the other role: the cheapest unpinned engine of the other pool takes
 *       role {@code both} and serves both legs (same-engine decode) until step 1 restores it.
 * </ol>
 *
 * Repairs act on placement alone: they need no profile and bypass the load rules, {@code
 * sustained_intervals}, confirmations, {@code cooldown_s} and {@code dwell_s} (an empty role is an
 * outage). Pins and breaker holds still bind. Confined to the controller's loop.
 */
final class FloorRepair {

  private final ControllerSettings settings;
  /** Engines in fallback (role both), to the role they return to. */
  private final Map<String, EngineRole> fallbacks = new LinkedHashMap<>();

  FloorRepair(ControllerSettings settings) {
    this.settings = settings;
  }

  /** This pass's step, or null when both pools are staffed and no fallback can end. */
  @Nullable RepairStep next(Collection<EngineState> engines) {
    RepairStep restore = restore(engines);
    if (restore != null) {
      return restore;
    }
    int prefill = poolSize(engines, true);
    int decode = poolSize(engines, false);
    if (prefill < settings.floor(true) || prefill == 0) {
      return staff(engines, EngineRole.PREFILL, prefill, decode);
    }
    if (decode < settings.floor(false) || decode == 0) {
      return staff(engines, EngineRole.DECODE, decode, prefill);
    }
    return null;
  }

  /** The controller applied {@code step}: remember a fallback, forget a restored one. */
  void applied(RepairStep step, EngineRole from) {
    EngineState e = step.engine();
    if (e == null) {
      return;
    }
    if (step.rule() == MoveRule.EMPTY_ROLE_FALLBACK) {
      fallbacks.put(e.iid(), from);
    } else if (step.rule() == MoveRule.FALLBACK_RESTORED) {
      fallbacks.remove(e.iid());
    }
  }

  private @Nullable RepairStep staff(Collection<EngineState> engines, EngineRole shortRole, int shortSize,
      int donorSize) {
    EngineRole donorRole = shortRole == EngineRole.PREFILL ? EngineRole.DECODE : EngineRole.PREFILL;
    List<EngineState> donors = new ArrayList<>();
    String held = null;
    String pinned = null;
    for (EngineState e : engines) {
      if (e.role() != donorRole) {
        continue;
      }
      if (e.spec().pin()) {
        pinned = pinned == null ? e.iid() : pinned;
      } else if (e.inPlacement()) {
        donors.add(e);
      } else {
        held = held == null ? e.iid() : held;
      }
    }
    donors.sort(FlipCost.leaving(donorRole));
    if (donors.isEmpty()) {
      return new RepairStep(null, shortRole, MoveRule.FLOOR_REPAIR, held != null ? Blocker.HOLD : Blocker.PIN,
          held != null ? held : pinned);
    }
    boolean donorPoolKeepsFloor = donorSize - 1 >= Math.max(1, settings.floor(donorRole == EngineRole.PREFILL));
    if (donorPoolKeepsFloor) {
      return new RepairStep(donors.get(0), shortRole, MoveRule.FLOOR_REPAIR, null);
    }
    if (shortSize == 0) {
      return new RepairStep(donors.get(0), EngineRole.BOTH, MoveRule.EMPTY_ROLE_FALLBACK, null);
    }
    return new RepairStep(null, shortRole, MoveRule.FLOOR_REPAIR, Blocker.FLOOR, donors.get(0).iid());
  }

  private @Nullable RepairStep restore(Collection<EngineState> engines) {
    for (Iterator<Map.Entry<String, EngineRole>> it = fallbacks.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, EngineRole> f = it.next();
      EngineState e = find(engines, f.getKey());
      if (e == null || e.role() != EngineRole.BOTH) {
        it.remove(); // moved by someone else meanwhile: nothing to restore
        continue;
      }
      boolean coveredRoleIsPrefill = f.getValue() == EngineRole.DECODE;
      for (EngineState other : engines) {
        if (other != e && other.inPlacement() && !fallbacks.containsKey(other.iid())
            && (coveredRoleIsPrefill ? other.role().canPrefill() : other.role().canDecode())) {
          return new RepairStep(e, f.getValue(), MoveRule.FALLBACK_RESTORED, null);
        }
      }
    }
    return null;
  }

  private static @Nullable EngineState find(Collection<EngineState> engines, String iid) {
    for (EngineState e : engines) {
      if (e.iid().equals(iid)) {
        return e;
      }
    }
    return null;
  }

  /** Engines in placement able to run {@code prefill} (else decode) legs. */
  static int poolSize(Collection<EngineState> engines, boolean prefill) {
    int n = 0;
    for (EngineState e : engines) {
      if (e.inPlacement() && (prefill ? e.role().canPrefill() : e.role().canDecode())) {
        n++;
      }
    }
    return n;
  }
}
