package narwhal.core.profile.measure;

import java.util.List;
import java.util.Objects;
import narwhal.core.profile.ProfileFits;
import narwhal.core.profile.ProfileRow;
import org.jspecify.annotations.Nullable;

/**
 * What measuring one engine produced.
 *
 * @param iid the engine
 * @param prefill the prefill fit, or null when there was none (too few samples, a failed leg)
 * @param decode the decode fit, or null likewise
 * @param row the profiles-file row, set exactly when both fits exist and the decode fit meets
 *     {@code profiles.max_decode_fit_mape} and {@code profiles.max_decode_cv_mape}
 * @param problems why there is no row, one line each, for an operator
 * @param notes what else the operator should know (a plan cut short by the budget, batches
 *     without a steady part)
 * @param elapsedNanos how long the measurement took
 */
public record EngineMeasurement(
    String iid,
    ProfileFits.@Nullable Prefill prefill,
    ProfileFits.@Nullable Decode decode,
    @Nullable ProfileRow row,
    List<String> problems,
    List<String> notes,
    long elapsedNanos) {

  public EngineMeasurement {
    Objects.requireNonNull(iid, "iid");
    problems = List.copyOf(problems);
    notes = List.copyOf(notes);
  }

  public boolean passed() {
    return row != null;
  }
}
