package narwhal.core.admission;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import narwhal.config.AdmissionMode;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.placement.PlacementCost;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code serving.admission: predictive}: prices a request's time to first token on the prefill
 * engine placement chose ({@link AdmissionPrice}) against the budget {@code slo.ttft_s · (1 +
 * serving.admission_margin)}. An engine without a profile cannot be priced: its requests are
 * admitted unpriced, and that is logged once per engine. With {@code open} admission nothing is
 * priced. Thread-safe.
 */
public final class PredictiveAdmission {

  private static final Logger log = LoggerFactory.getLogger(PredictiveAdmission.class);

  private final boolean enabled;
  private final PlacementCost cost;
  private final double ttftS;
  private final double margin;
  private final Set<String> reportedUnpriced = ConcurrentHashMap.newKeySet();

  public PredictiveAdmission(AdmissionMode mode, double ttftS, double margin, PlacementCost cost) {
    this.enabled = mode == AdmissionMode.PREDICTIVE;
    this.ttftS = ttftS;
    this.margin = margin;
    this.cost = cost;
  }

  public static PredictiveAdmission from(FleetConfig config, PlacementCost cost) {
    return new PredictiveAdmission(config.serving().admission(), config.slo().ttftS(),
        config.serving().admissionMargin(), cost);
  }

  /** True for {@code predictive} admission; {@code open} prices nothing. */
  public boolean enabled() {
    return enabled;
  }

  /** True when a request placed on {@code engine} would be priced: predictive admission and a profile. */
  public boolean prices(EngineState engine) {
    return enabled && cost.profiled(engine);
  }

  /** The TTFT budget: {@code slo.ttft_s · (1 + serving.admission_margin)}. */
  public double budgetS() {
    return ttftS * (1 + margin);
  }

  public double ttftS() {
    return ttftS;
  }

  public double margin() {
    return margin;
  }

  /**
   * Logs, once per engine, each engine of {@code engines} that has no profile: with predictive
   * admission its requests go unpriced. For the serve command to call once profiles are loaded.
   */
  public void reportUnprofiled(Iterable<EngineState> engines) {
    if (!enabled) {
      return;
    }
    for (EngineState e : engines) {
      if (!cost.profiled(e) && reportedUnpriced.add(e.iid())) {
        log.warn("admission predictive: no profile for {}, admitted unpriced", e.iid());
      }
    }
  }

  /**
   * The request's price on {@code producer}, or null when it is not priced: {@code open}
   * admission, or an engine without a profile (admitted unpriced; logged the first time).
   *
   * @param elapsedS seconds since the request arrived
   */
  public @Nullable AdmissionPrice price(EngineState producer, long promptTokens, double elapsedS) {
    return price(producer, promptTokens, 0, elapsedS);
  }

  /**
   * As {@link #price(EngineState, long, double)}, pricing only the part of the prompt the
   * producer's prefix cache holds not ({@code cachedTokens}), as placement did.
   */
  public @Nullable AdmissionPrice price(EngineState producer, long promptTokens, long cachedTokens, double elapsedS) {
    if (!enabled) {
      return null;
    }
    double backlog = cost.backlogSeconds(producer);
    if (Double.isNaN(backlog)) {
      if (reportedUnpriced.add(producer.iid())) {
        log.warn("admission predictive: no profile for {}, admitted unpriced", producer.iid());
      }
      return null;
    }
    return new AdmissionPrice(backlog, cost.ownPrefillSeconds(producer, promptTokens, cachedTokens),
        Math.max(0, elapsedS));
  }
}
