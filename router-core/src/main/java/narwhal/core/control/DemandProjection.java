package narwhal.core.control;

import java.util.List;
import narwhal.core.profile.DecodeModel;

/**
 * What the demand of the last {@code reactive.window_s} costs a split at steady state, from the
 * profiles: the load a pool will carry once the arrivals now coming in have settled on it, before
 * its queues or streams show it.
 *
 * <p>Measured loads lag demand. A prefill pool's backlog only grows once it is overloaded, and
 * under predictive admission it never grows past the SLO at all, since the requests that would
 * push it there are refused; a decode pool's interval only grows as long streams accumulate, which
 * takes a stream's lifetime. A controller that waits for either follows a change of mix by tens
 * of seconds, so the scoring also prices the demand itself:
 *
 * <ul>
 *   <li>prefill: each arrival brings its own prefill time; the pool's utilization with {@code n}
 *       engines is {@code rate × own prefill seconds / n};
 *   <li>decode: each resident stream adds {@code c = perSequence + perResidentToken × context} to
 *       every step (context = the mean prompt plus half the mean output), and stays resident for
 *       {@code wanted × interval} seconds, so by Little's law an engine of a pool of {@code n}
 *       carries {@code rate × wanted × interval / n} streams and its interval settles at {@code
 *       floor / (1 − rate × wanted × c / n)}; at or above 1 the pool cannot keep up at any pace.
 * </ul>
 *
 * Arrivals counted here include the requests predictive admission refuses afterwards: refused
 * demand is exactly the demand a pool could not carry.
 *
 * @param ownPrefillS the pool's predicted prefill time of the window's mean prompt
 * @param prefillWorkPerS prefill seconds arriving per second (engines busy at full utilization)
 * @param decodeWork {@code rate × wanted × c}: the share of one engine's step time the streams
 *     would take at any interval (0 without a decode model)
 * @param floorS the decode pool's floor interval
 */
record DemandProjection(double ownPrefillS, double prefillWorkPerS, double decodeWork, double floorS) {

  /** No demand priced: too few arrivals in the window, or nothing profiled. */
  static final DemandProjection NONE = new DemandProjection(0, 0, 0, 0);

  static DemandProjection of(Demand demand, PrefillPool prefill, DecodePool decode) {
    if (!demand.scored()) {
      return NONE;
    }
    double own = prefill.ownPrefillSeconds(demand.meanPromptTokens());
    double rate = demand.rate();
    double perStream = perStreamCost(decode, demand.meanPromptTokens() + demand.meanWantedTokens() / 2);
    double floor = Double.isNaN(decode.floorS()) ? 0 : decode.floorS();
    return new DemandProjection(own, rate * own, rate * demand.meanWantedTokens() * perStream, floor);
  }

  /**
   * Seconds one resident stream of {@code contextTokens} adds to each step of the pool's mean
   * engine, scaled by the pool's decode correction (its corrected floor over the models' floor).
   */
  private static double perStreamCost(DecodePool pool, double contextTokens) {
    List<DecodeModel> models = pool.models();
    if (models.isEmpty()) {
      return 0;
    }
    double cost = 0;
    double base = 0;
    for (DecodeModel m : models) {
      cost += m.perSequenceS() + m.perResidentTokenS() * contextTokens;
      base += m.baseS();
    }
    double correction = base > 0 && pool.floorS() > 0 ? pool.floorS() / (base / models.size()) : 1;
    return cost / models.size() * correction;
  }

  /** The prefill pool's utilization with {@code engines} engines (infinite with none). */
  double prefillUtilization(int engines) {
    if (prefillWorkPerS <= 0) {
      return 0;
    }
    return engines <= 0 ? Double.POSITIVE_INFINITY : prefillWorkPerS / engines;
  }

  /**
   * The decode interval the demand settles at with {@code engines} engines, or infinity when the
   * pool cannot keep up; 0 when no decode demand is priced.
   */
  double decodeIntervalS(int engines) {
    if (decodeWork <= 0) {
      return 0;
    }
    if (engines <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    double busy = decodeWork / engines;
    return busy >= 1 ? Double.POSITIVE_INFINITY : floorS / (1 - busy);
  }
}
