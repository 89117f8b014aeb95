package narwhal.core.placement;

import java.util.Comparator;
import java.util.function.ToLongFunction;
import narwhal.core.fleet.EngineState;

/**
 * How priced placement orders prefill candidates for one request: first the engines whose
 * projected time to first token (what the request waited, plus {@link
 * PlacementCost#prefillSeconds}) meets {@code slo.ttft_s}; then by that projection; and among
 * near-ties (projections within {@link #NEAR_TIE_FRACTION} of the target of each other, in
 * fixed-width bands so the order stays total) by Arrow's lexicographic prefill cost, fewer decode
 * tokens resident first (an engine still finishing decodes after a role move is slowed by them),
 * then less prefill work queued; last, the lowest iid.
 *
 * <p>Reused across a request's attempts ({@link #forRequest}); confined to the request's loop.
 */
public final class PrefillRanking implements Comparator<EngineState> {

  /** Projections closer than this fraction of {@code slo.ttft_s} count as a near-tie. */
  public static final double NEAR_TIE_FRACTION = 0.01;

  private final PlacementCost cost;
  private final double bandS;
  private long promptTokens;
  private double elapsedS;
  /** The prompt tokens each engine's prefix cache holds (cache-aware placement), or none. */
  private ToLongFunction<EngineState> cached = NOTHING_CACHED;
  private static final ToLongFunction<EngineState> NOTHING_CACHED = e -> 0;

  public PrefillRanking(PlacementCost cost) {
    this.cost = cost;
    this.bandS = Math.max(1e-9, NEAR_TIE_FRACTION * cost.ttftS());
  }

  /** Sets the request this ranking prices: its prompt and how long it has waited already. */
  public PrefillRanking forRequest(long promptTokens, double elapsedS) {
    return forRequest(promptTokens, elapsedS, NOTHING_CACHED);
  }

  /**
   * As {@link #forRequest(long, double)}, pricing on each engine only the part of the prompt its
   * prefix cache does not hold ({@code cached}, tokens per engine).
   */
  public PrefillRanking forRequest(long promptTokens, double elapsedS, ToLongFunction<EngineState> cached) {
    this.promptTokens = promptTokens;
    this.elapsedS = elapsedS;
    this.cached = cached;
    return this;
  }

  /** The projected seconds to first token on {@code engine} (backlog plus own prefill), +∞ without a profile. */
  public double projectedSeconds(EngineState engine) {
    return projected(engine);
  }

  /** True when placing the request on {@code engine} is projected to meet {@code slo.ttft_s}. */
  public boolean meets(EngineState engine) {
    return elapsedS + projected(engine) <= cost.ttftS();
  }

  @Override
  public int compare(EngineState a, EngineState b) {
    double pa = projected(a);
    double pb = projected(b);
    boolean ma = elapsedS + pa <= cost.ttftS();
    boolean mb = elapsedS + pb <= cost.ttftS();
    if (ma != mb) {
      return ma ? -1 : 1;
    }
    int c = Long.compare(band(pa), band(pb));
    if (c != 0) {
      return c;
    }
    c = Long.compare(a.residentDecodeTokens(), b.residentDecodeTokens());
    if (c != 0) {
      return c;
    }
    c = Double.compare(backlog(a), backlog(b));
    if (c != 0) {
      return c;
    }
    return a.iid().compareTo(b.iid());
  }

  private double projected(EngineState e) {
    double p = cost.prefillSeconds(e, promptTokens, cached.applyAsLong(e));
    return Double.isNaN(p) ? Double.POSITIVE_INFINITY : p;
  }

  private double backlog(EngineState e) {
    double b = cost.backlogSeconds(e);
    return Double.isNaN(b) ? Double.POSITIVE_INFINITY : b;
  }

  private long band(double seconds) {
    return Double.isInfinite(seconds) ? Long.MAX_VALUE : (long) Math.floor(seconds / bandS);
  }
}
