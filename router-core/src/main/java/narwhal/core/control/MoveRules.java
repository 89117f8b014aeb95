package narwhal.core.control;

import java.util.ArrayList;
import java.util.List;
import narwhal.core.control.SustainedLoads.Condition;
import org.jspecify.annotations.Nullable;

/**
 * Which move, if any, one evaluation calls for. A rule proposes a direction; the reactive score
 * then decides: the split one engine away in that direction must score at least {@code
 * reactive.movement_margin} better than the current split ({@link SplitScorer}). Rules, each on
 * conditions sustained for {@code thresholds.sustained_intervals} ticks:
 *
 * <ul>
 *   <li>D→P {@code projected_ttft_recovery}: prefill load ≥ expand;
 *   <li>D→P {@code settled_departure}: decode load ≤ shrink ≤ prefill load (when the first did not
 *       fire);
 *   <li>P→D {@code mixed_pressure}: decode load ≥ expand, whatever prefill's load (when both pools
 *       are pressed, only the score can say which side a move helps);
 *   <li>P→D {@code source_shrink}: prefill load ≤ shrink ≤ decode load (Alg. 2's second clause;
 *       when mixed_pressure did not fire);
 *   <li>either way {@code steady_demand}: when none of those fires, demand is steady (the last two
 *       evidence windows agree within {@code demand_rise_tolerance}), the demand window is scored
 *       and its rate is at least {@code reactive.demand_floor} requests/s.
 * </ul>
 *
 * When both directions qualify, the one whose split scores best wins (ties: D→P, the cheaper move
 * to undo, since a prefill engine's resident work is short). Guards come after ({@link MoveGuards}).
 */
final class MoveRules {

  private final ControllerSettings settings;
  private final SplitScorer scorer;

  MoveRules(ControllerSettings settings, SplitScorer scorer) {
    this.settings = settings;
    this.scorer = scorer;
  }

  /**
   * The move to make, or null.
   *
   * @param steadyDemand whether the demand is steady, scored and above the floor (steady_demand)
   * @param demand what the demand window's arrivals cost each split
   */
  @Nullable Proposal propose(PoolLoads loads, SustainedLoads sustained, boolean steadyDemand,
      DemandProjection demand) {
    int sustain = settings.thresholds().sustainedIntervals();
    int prefill = loads.prefill().size();
    int decode = loads.decode().size();
    SplitScore now = scorer.score(loads, demand, prefill, decode);
    SplitScore toPrefill = scorer.score(loads, demand, prefill + 1, decode - 1);
    SplitScore toDecode = scorer.score(loads, demand, prefill - 1, decode + 1);
    List<Proposal> fired = new ArrayList<>();
    if (sustained.sustained(Condition.PREFILL_HIGH, sustain)) {
      fired.add(new Proposal(Direction.DECODE_TO_PREFILL, MoveRule.PROJECTED_TTFT_RECOVERY, now, toPrefill));
    } else if (sustained.sustained(Condition.DECODE_SHRINK, sustain)) {
      fired.add(new Proposal(Direction.DECODE_TO_PREFILL, MoveRule.SETTLED_DEPARTURE, now, toPrefill));
    }
    if (sustained.sustained(Condition.DECODE_HIGH, sustain)) {
      fired.add(new Proposal(Direction.PREFILL_TO_DECODE, MoveRule.MIXED_PRESSURE, now, toDecode));
    } else if (sustained.sustained(Condition.PREFILL_SHRINK, sustain)) {
      fired.add(new Proposal(Direction.PREFILL_TO_DECODE, MoveRule.SOURCE_SHRINK, now, toDecode));
    }
    if (fired.isEmpty() && steadyDemand) {
      fired.add(new Proposal(Direction.DECODE_TO_PREFILL, MoveRule.STEADY_DEMAND, now, toPrefill));
      fired.add(new Proposal(Direction.PREFILL_TO_DECODE, MoveRule.STEADY_DEMAND, now, toDecode));
    }
    double margin = settings.reactive().movementMargin();
    Proposal best = null;
    for (Proposal p : fired) {
      // Strictly better too: with a margin of 0 a move that changes nothing is still no move.
      boolean improves = p.after().score() <= now.score() - margin && p.after().score() < now.score();
      if (improves && (best == null || p.after().score() < best.after().score())) {
        best = p;
      }
    }
    return best;
  }
}
