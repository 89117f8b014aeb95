package narwhal.config;

/**
 * The {@code controller.reactive} section: the reactive controller's scoring of adjacent splits.
 *
 * @param windowS the demand observation window
 * @param confirmations evaluations in a row that must agree before a move
 * @param utilization the target utilization a split is scored against
 * @param minArrivals arrivals a window needs before it is scored
 * @param demandFloor the least demand considered
 * @param movementMargin how much a move must improve the score
 * @param stepS the least time between evaluations
 * @param evidenceSpanS the arrival-evidence window a D→P move needs
 * @param evidenceMaxSpanS the longest that evidence window may grow
 * @param evidenceMinArrivals arrivals the evidence window needs
 * @param demandRiseTolerance how much decode demand may rise and still count as stable
 * @param decodeCorrectionMin the smallest decode-floor correction factor
 * @param decodeCorrectionMax the largest decode-floor correction factor
 * @param decodeCorrectionAlpha the smoothing weight of each new correction sample
 * @param decodeCorrectionMinSamples samples needed before the correction applies
 */
public record ReactiveConfig(
    double windowS,
    int confirmations,
    double utilization,
    int minArrivals,
    double demandFloor,
    double movementMargin,
    double stepS,
    double evidenceSpanS,
    double evidenceMaxSpanS,
    int evidenceMinArrivals,
    double demandRiseTolerance,
    double decodeCorrectionMin,
    double decodeCorrectionMax,
    double decodeCorrectionAlpha,
    int decodeCorrectionMinSamples) {

  public static ReactiveConfig defaults() {
    return new ReactiveConfig(
        120.0, 2, 0.8, 10, 0.5, 0.05, 5.0, 60.0, 120.0, 10, 0.25, 0.5, 2.0, 0.2, 8);
  }
}
