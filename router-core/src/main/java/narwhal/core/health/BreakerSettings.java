package narwhal.core.health;

import narwhal.config.FleetConfig;

/**
 * The breaker's numbers from the fleet file, clamped where a value below 1 would make no sense:
 * the streak that takes an engine out, how often readmission and liveness run (in monitor ticks),
 * the liveness misses that eject, the tick, and whether a contract is pinned (readmission then
 * runs lifecycle validation first).
 */
record BreakerSettings(int ejectAfter, int readmitEvery, int livenessEvery, int livenessMisses, long intervalNanos,
    boolean contractPinned) {

  static BreakerSettings of(FleetConfig config) {
    return new BreakerSettings(
        Math.max(1, config.recovery().ejectAfter()),
        Math.max(1, config.recovery().readmitEvery()),
        config.recovery().livenessEvery(),
        Math.max(1, config.recovery().livenessMisses()),
        Math.max(1L, (long) (config.controller().monitorIntervalS() * 1e9)),
        config.engineContract() != null);
  }
}
