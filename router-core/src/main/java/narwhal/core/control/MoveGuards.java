package narwhal.core.control;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import narwhal.config.ThresholdsConfig;
import narwhal.core.fleet.EngineState;
import org.jspecify.annotations.Nullable;

/**
 * The guards a load-driven move passes, and the engine it moves (Alg. 3 among those the guards
 * allow). In order, the first that fails names the block:
 *
 * <ol>
 *   <li>{@code profile_coverage}: every engine of both pools has a profile;
 *   <li>{@code floor}: the source pool keeps at least {@code min_prefill}/{@code min_decode}
 *       engines, and at least one;
 *   <li>{@code cooldown} (P→D only): {@code cooldown_s} since the last P→D move, unless {@code
 *       panic_ratio} &gt; 0 and the decode load is at least {@code panic_ratio × expand};
 *   <li>{@code evidence}, {@code demand_rising} (D→P only): see {@link ArrivalEvidence};
 *   <li>the engine: the cheapest flip ({@link FlipCost}) among the source role's engines in
 *       placement that are not pinned ({@code pin}), not within {@code dwell_s} of their last move
 *       ({@code dwell}) and, for D→P, hold at most {@code flip_resident_guard} resident decodes
 *       when that guard is on ({@code donor_resident}) and have a decode load below {@code shrink}
 *       ({@code donor_load}). When none qualifies the block is the cheapest candidate's reason
 *       ({@code pin} when every candidate is pinned, or there is none: role both never moves).
 * </ol>
 *
 * Engines out of placement (held or ejected by the breaker) belong to no pool and never move.
 */
final class MoveGuards {

  /**
   * The engine to move, or what blocked the move (exactly one of the two is non-null), and the
   * engine the move would have taken: the cheapest flip of the source pool, which a blocked
   * decision names so an operator knows which engine is held where it is.
   */
  record Verdict(@Nullable EngineState engine, @Nullable Blocker blocker, @Nullable EngineState candidate) {}

  private final ControllerSettings settings;
  private final MoveLedger ledger;

  MoveGuards(ControllerSettings settings, MoveLedger ledger) {
    this.settings = settings;
    this.ledger = ledger;
  }

  Verdict check(Proposal proposal, PoolLoads loads, Collection<EngineState> engines, ArrivalEvidence evidence,
      long now) {
    Direction d = proposal.direction();
    boolean fromPrefill = d == Direction.PREFILL_TO_DECODE;
    ThresholdsConfig t = settings.thresholds();
    List<EngineState> candidates = new ArrayList<>();
    for (EngineState e : engines) {
      if (e.inPlacement() && e.role() == d.from()) {
        candidates.add(e);
      }
    }
    candidates.sort(FlipCost.leaving(d.from()));
    // The fleet's guards stop the move before any engine is judged: the cheapest flip is the one
    // the move would have taken, unless it is pinned (then the first one that is not).
    EngineState cheapest = candidates.stream().filter(e -> !e.spec().pin()).findFirst()
        .orElse(candidates.isEmpty() ? null : candidates.get(0));
    if (!loads.covered()) {
      return blocked(Blocker.PROFILE_COVERAGE, cheapest);
    }
    int sourceSize = fromPrefill ? loads.prefill().size() : loads.decode().size();
    if (sourceSize - 1 < Math.max(1, settings.floor(fromPrefill))) {
      return blocked(Blocker.FLOOR, cheapest);
    }
    if (fromPrefill && ledger.sinceLastPrefillToDecode(now) < settings.cooldownNanos() && !panic(loads, t)) {
      return blocked(Blocker.COOLDOWN, cheapest);
    }
    if (!fromPrefill) {
      Blocker b = evidence.decodeToPrefill(settings.reactive().demandRiseTolerance());
      if (b != null) {
        return blocked(b, cheapest);
      }
    }
    Blocker first = null;
    EngineState firstBlocked = null;
    for (EngineState e : candidates) {
      Blocker b = engineBlock(e, d, loads, t, now);
      if (b == null) {
        return new Verdict(e, null, e);
      }
      if (first == null || first == Blocker.PIN) {
        first = b;
        firstBlocked = e;
      }
    }
    // No candidate at all: the pool's engines all have role both, which never moves.
    return blocked(first == null ? Blocker.PIN : first, firstBlocked);
  }

  private @Nullable Blocker engineBlock(EngineState e, Direction d, PoolLoads loads, ThresholdsConfig t, long now) {
    if (e.spec().pin()) {
      return Blocker.PIN;
    }
    if (ledger.dwelling(e.iid(), now)) {
      return Blocker.DWELL;
    }
    if (d == Direction.DECODE_TO_PREFILL) {
      // 0 turns the guard off, as panic_ratio's 0 does: with least-loaded placement every decode
      // engine carries streams under steady load, so "none resident" would forbid D→P exactly
      // when the fleet needs it. Resident streams finish where they are either way.
      if (t.flipResidentGuard() > 0 && e.residentDecode() > t.flipResidentGuard()) {
        return Blocker.DONOR_RESIDENT;
      }
      EngineLoad own = loads.engine(e.iid());
      if (own == null || !(own.decodeLoad() < t.shrink())) {
        return Blocker.DONOR_LOAD;
      }
    }
    return null;
  }

  private static boolean panic(PoolLoads loads, ThresholdsConfig t) {
    return t.panicRatio() > 0 && loads.decode().load() >= t.panicRatio() * t.expand();
  }

  private static Verdict blocked(Blocker blocker, @Nullable EngineState candidate) {
    return new Verdict(null, blocker, candidate);
  }
}
