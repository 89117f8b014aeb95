package narwhal.core.profile;

import java.util.List;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The fleet's profile: what an engine without a fresh row of its own is priced with. Every number
 * (each coefficient, each domain bound, the fit errors) is the median of that number over the
 * fresh rows, taken one number at a time (the mean of the middle two for an even count). A median
 * rather than a mean: one engine measured while something else ran on its GPU must not drag the
 * whole fleet's profile with it. The engines of one fleet serve one model on one kind of hardware
 * (the fleet file's {@code model} and {@code hardware}), so their rows describe the same curve up
 * to noise.
 */
public final class FleetProfile {

  private FleetProfile() {}

  /** The fleet's profile for engine {@code iid}, or null when there is no fresh row at all. */
  public static @Nullable EngineProfile of(String iid, List<EngineProfile> fresh) {
    if (fresh.isEmpty()) {
      return null;
    }
    PrefillModel prefill = new PrefillModel(
        median(fresh, p -> p.prefill().baseS()),
        median(fresh, p -> p.prefill().perTokenS()),
        median(fresh, p -> p.prefill().perTokenSquaredS()),
        Math.round(median(fresh, p -> p.prefill().minTokens())),
        Math.round(median(fresh, p -> p.prefill().maxTokens())));
    DecodeModel decode = new DecodeModel(
        median(fresh, p -> p.decode().baseS()),
        median(fresh, p -> p.decode().perResidentTokenS()),
        median(fresh, p -> p.decode().perSequenceS()),
        Math.round(median(fresh, p -> p.decode().maxResidentTokens())),
        (int) Math.round(median(fresh, p -> p.decode().maxSequences())));
    return new EngineProfile(iid, null, prefill, decode,
        median(fresh, EngineProfile::decodeFitMape), median(fresh, EngineProfile::decodeCvMape));
  }

  static double median(List<EngineProfile> profiles, ToDoubleFunction<EngineProfile> value) {
    double[] v = profiles.stream().mapToDouble(value).sorted().toArray();
    int mid = v.length / 2;
    return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  }
}
