package narwhal.core.placement;

import java.util.Comparator;
import narwhal.core.fleet.EngineState;

/**
 * How priced placement orders decode candidates for one request: first the engines whose
 * projected decode interval with this request added ({@link PlacementCost#decodeIntervalSeconds})
 * meets {@code slo.tpot_s}; then by that interval; among near-ties (within {@link
 * PrefillRanking#NEAR_TIE_FRACTION} of the target, in fixed bands) by Arrow's decode cost, fewer
 * prefill tokens resident first (a prefill on the same engine delays its decode steps); last, the
 * lowest iid.
 *
 * <p>Reused across a request's attempts ({@link #forRequest}); confined to the request's loop.
 */
public final class DecodeRanking implements Comparator<EngineState> {

  private final PlacementCost cost;
  private final double bandS;
  private long kvTokens;

  public DecodeRanking(PlacementCost cost) {
    this.cost = cost;
    this.bandS = Math.max(1e-12, PrefillRanking.NEAR_TIE_FRACTION * cost.tpotS());
  }

  /** Sets the request this ranking prices: its KV tokens (prompt plus wanted output). */
  public DecodeRanking forRequest(long kvTokens) {
    this.kvTokens = kvTokens;
    return this;
  }

  /** True when adding the request to {@code engine} is projected to keep its interval within {@code slo.tpot_s}. */
  public boolean meets(EngineState engine) {
    return interval(engine) <= cost.tpotS();
  }

  @Override
  public int compare(EngineState a, EngineState b) {
    double ia = interval(a);
    double ib = interval(b);
    boolean ma = ia <= cost.tpotS();
    boolean mb = ib <= cost.tpotS();
    if (ma != mb) {
      return ma ? -1 : 1;
    }
    int c = Long.compare(band(ia), band(ib));
    if (c != 0) {
      return c;
    }
    c = Long.compare(a.residentPrefillTokens(), b.residentPrefillTokens());
    if (c != 0) {
      return c;
    }
    return a.iid().compareTo(b.iid());
  }

  private double interval(EngineState e) {
    double i = cost.decodeIntervalSeconds(e, kvTokens);
    return Double.isNaN(i) ? Double.POSITIVE_INFINITY : i;
  }

  private long band(double seconds) {
    return Double.isInfinite(seconds) ? Long.MAX_VALUE : (long) Math.floor(seconds / bandS);
  }
}
