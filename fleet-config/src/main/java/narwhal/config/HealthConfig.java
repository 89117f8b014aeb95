package narwhal.config;

/**
 * The {@code recovery.health} section: drift scoring of each engine's decode residuals against its
 * own healthy baseline.
 *
 * @param windowS the scoring window
 * @param driftBand how far (× the baseline) a window may drift before it counts against the engine
 * @param relativeBand the band relative to the fleet, for the fleet-surge veto
 * @param minSamples samples a window needs before it is scored
 * @param probationWindows drifting windows that put an engine on probation
 * @param evictWindows drifting windows that eject an engine
 * @param recoveryWindows clean windows that end probation
 * @param probationPenaltyS the placement penalty an engine on probation carries
 */
public record HealthConfig(
    double windowS,
    double driftBand,
    double relativeBand,
    int minSamples,
    int probationWindows,
    int evictWindows,
    int recoveryWindows,
    double probationPenaltyS) {

  public static HealthConfig defaults() {
    return new HealthConfig(30.0, 2.0, 1.5, 3, 3, 5, 3, 1.5);
  }
}
