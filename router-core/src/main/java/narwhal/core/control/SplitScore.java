package narwhal.core.control;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A prefill/decode split's projected ratios to the SLO (1.0 = at target; {@link
 * SplitScorer#SATURATED} for a pool left empty). The score is the worst of them: a split is as
 * good as its most pressed side.
 *
 * @param prefillEngines engines in the prefill pool under this split
 * @param decodeEngines engines in the decode pool under this split
 * @param ttftRatio projected TTFT of a new request over {@code slo.ttft_s}
 * @param tpotRatio projected decode interval over {@code slo.tpot_s}
 * @param decodeQueueRatio projected decode sequences per engine over {@code reactive.utilization}
 *     × the engines' measured sequence capacity: above 1 decodes start to queue for a seat
 * @param prefillDemandRatio the arriving demand's prefill utilization over {@code
 *     reactive.utilization} (0 when no demand is priced)
 * @param decodeDemandRatio the interval the arriving demand settles at over {@code slo.tpot_s}
 *     (0 when no demand is priced)
 */
record SplitScore(int prefillEngines, int decodeEngines, double ttftRatio, double tpotRatio,
    double decodeQueueRatio, double prefillDemandRatio, double decodeDemandRatio) {

  double score() {
    return Math.max(Math.max(ttftRatio, Math.max(tpotRatio, decodeQueueRatio)),
        Math.max(prefillDemandRatio, decodeDemandRatio));
  }

  /** The journal's view: the split and its ratios, rounded to four decimals. */
  Map<String, Object> toJournal() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("prefill", prefillEngines);
    m.put("decode", decodeEngines);
    m.put("score", round(score()));
    m.put("ttft_ratio", round(ttftRatio));
    m.put("tpot_ratio", round(tpotRatio));
    m.put("decode_queue_ratio", round(decodeQueueRatio));
    m.put("prefill_demand_ratio", round(prefillDemandRatio));
    m.put("decode_demand_ratio", round(decodeDemandRatio));
    return m;
  }

  static double round(double v) {
    return Math.round(v * 10_000) / 10_000.0;
  }
}
