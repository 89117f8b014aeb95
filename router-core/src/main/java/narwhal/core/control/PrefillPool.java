package narwhal.core.control;

import java.util.List;
import narwhal.core.profile.PrefillModel;

/**
 * The prefill pool at one tick: engines in placement that can prefill.
 *
 * @param size engines in the pool
 * @param profiled how many of them have a profile
 * @param backlogS predicted resident prefill work summed over the profiled members, in seconds
 * @param load the mean of the profiled members' prefill loads, or NaN when none is profiled
 * @param models the profiled members' prefill models, for a new request's own prefill time
 */
record PrefillPool(int size, int profiled, double backlogS, double load, List<PrefillModel> models) {

  PrefillPool {
    models = List.copyOf(models);
  }

  /** The same pool carrying {@code load} instead. */
  PrefillPool withLoad(double load) {
    return new PrefillPool(size, profiled, backlogS, load, models);
  }

  /** The pool's mean predicted time to prefill a prompt of {@code tokens} (0 without models). */
  double ownPrefillSeconds(double tokens) {
    if (models.isEmpty() || !(tokens > 0)) {
      return 0;
    }
    double sum = 0;
    for (PrefillModel m : models) {
      sum += m.seconds(Math.round(tokens));
    }
    return sum / models.size();
  }
}
