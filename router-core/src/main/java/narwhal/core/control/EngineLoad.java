package narwhal.core.control;

import narwhal.config.EngineRole;

/**
 * One engine's loads at one monitor tick (1.0 = at the SLO target). A load the engine has no
 * profile for is NaN.
 *
 * @param iid the engine
 * @param role its role at the tick
 * @param inPlacement whether the breaker lets placement use it (engines out of placement belong to
 *     no pool)
 * @param profiled whether the profile book has a row for it
 * @param prefillLoad its predicted resident prefill work over {@code slo.ttft_s}
 * @param intervalS its decode interval: the mean gap between tokens observed over the tick, or,
 *     when it produced no token, the corrected profile prediction for its resident decodes
 * @param floorS its corrected decode floor: the profile's base interval times the correction
 * @param decodeLoad max(0, interval − floor) / (tpot − floor)
 * @param residentDecodes decode legs resident on it
 */
record EngineLoad(
    String iid,
    EngineRole role,
    boolean inPlacement,
    boolean profiled,
    double prefillLoad,
    double intervalS,
    double floorS,
    double decodeLoad,
    int residentDecodes) {}
