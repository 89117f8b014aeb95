package narwhal.core.control;

/**
 * Projects a prefill/decode split from the loads measured on the current one (the reactive
 * controller of section 6). With {@code nP0}, {@code nD0} the current pool sizes:
 *
 * <ul>
 *   <li>TTFT ratio = (resident prefill backlog / nP + the pool's predicted prefill of the window's
 *       mean prompt) / {@code slo.ttft_s}: placement spreads new prefills over the pool, so the
 *       backlog a new request waits behind shrinks as the pool grows;
 *   <li>TPOT ratio = (floor + excess × nD0 / nD) / {@code slo.tpot_s}: the interval above the
 *       floor grows with the streams each engine carries, and those spread over the pool;
 *   <li>decode-queueing ratio = (resident decodes / nD) / ({@code reactive.utilization} × the
 *       measured sequence capacity), 0 when the profiles measured no capacity;
 *   <li>prefill-demand ratio = the window's prefill utilization over nP ({@link
 *       DemandProjection}) / {@code reactive.utilization};
 *   <li>decode-demand ratio = the interval the window's demand settles at over nD / {@code
 *       slo.tpot_s}.
 * </ul>
 *
 * The first three price the work the pools hold now, the last two the work arriving: a mix that
 * changes shows in the demand ratios at once, long before queues or streams build up.
 *
 * A pool of zero engines serves nothing: its ratio is {@link #SATURATED}. The projection assumes
 * the demand that produced today's loads continues; work already resident stays where it is, so
 * the projection describes the split new placements will see, which is what a move changes.
 */
final class SplitScorer {

  /** The ratio of a pool that cannot serve at all: large, finite (journal rows are JSON). */
  static final double SATURATED = 100.0;

  private final double ttftS;
  private final double tpotS;
  private final double utilization;

  SplitScorer(ControllerSettings settings) {
    this.ttftS = settings.slo().ttftS();
    this.tpotS = settings.slo().tpotS();
    this.utilization = settings.reactive().utilization();
  }

  /** The split of {@code prefill} and {@code decode} engines, projected from {@code loads}. */
  SplitScore score(PoolLoads loads, DemandProjection demand, int prefill, int decode) {
    double ttft = prefill <= 0 ? SATURATED
        : cap((loads.prefill().backlogS() / prefill + demand.ownPrefillS()) / ttftS);
    double prefillDemand = cap(demand.prefillUtilization(prefill) / utilization);
    double decodeDemand = cap(demand.decodeIntervalS(decode) / tpotS);
    DecodePool pool = loads.decode();
    double tpot;
    double queue;
    if (decode <= 0) {
      tpot = SATURATED;
      queue = SATURATED;
    } else {
      double scale = (double) Math.max(1, pool.size()) / decode;
      tpot = cap((pool.floorS() + pool.excessS() * scale) / tpotS);
      queue = pool.seats() > 0 ? cap((double) pool.residentDecodes() / decode / (utilization * pool.seats())) : 0;
    }
    return new SplitScore(prefill, decode, ttft, tpot, queue, prefillDemand, decodeDemand);
  }

  private static double cap(double ratio) {
    // Infinity (a pool that cannot keep up) caps too.
    return Double.isNaN(ratio) ? SATURATED : Math.min(SATURATED, ratio);
  }
}
