package narwhal.core.control;

/**
 * The decode pool at one tick: engines in placement that can decode.
 *
 * @param size engines in the pool
 * @param profiled how many of them have a profile
 * @param floorS the profiled members' mean corrected floor interval
 * @param excessS the profiled members' mean interval above their floor: the part that grows with
 *     the streams each engine carries
 * @param load the mean of the profiled members' decode loads, or NaN when none is profiled
 * @param residentDecodes decode legs resident on the pool's members
 * @param seats the profiled members' mean measured sequence capacity (the profile's {@code
 *     maxSequences}); 0 when unknown
 */
record DecodePool(int size, int profiled, double floorS, double excessS, double load, int residentDecodes,
    double seats) {}
