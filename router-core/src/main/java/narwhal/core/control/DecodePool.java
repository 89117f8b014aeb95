package narwhal.core.control;

import java.util.List;
import narwhal.core.profile.DecodeModel;

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
 * @param models the profiled members' decode models, for what new streams would cost them
 */
record DecodePool(int size, int profiled, double floorS, double excessS, double load, int residentDecodes,
    double seats, List<DecodeModel> models) {

  DecodePool {
    models = List.copyOf(models);
  }

  /** The same pool carrying {@code load} instead. */
  DecodePool withLoad(double load) {
    return new DecodePool(size, profiled, floorS, excessS, load, residentDecodes, seats, models);
  }
}
