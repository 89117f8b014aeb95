package narwhal.core.profile;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One engine's row of the profiles file: its fitted models with what they were measured on.
 *
 * @param iid the engine
 * @param url the engine's URL when it was measured (informational: a row binds to the iid and
 *     the process generation, not to an address)
 * @param generation the engine's process generation when measured, from its attestation
 *     document's {@code process_generation}; null when the engine reported none
 * @param measuredAt when the measurement ended
 * @param prefill the prefill model, with its measured domain of prompt lengths
 * @param prefillSamples how many prompt lengths the prefill model was fitted to
 * @param decode the decode model, with its measured domain
 * @param decodeSamples how many batches the decode model was fitted to
 * @param decodeFitMape the decode fit's error on its own samples
 * @param decodeCvMape the decode fit's leave-one-out cross-validated error
 */
public record ProfileRow(
    String iid,
    String url,
    @Nullable String generation,
    Instant measuredAt,
    PrefillModel prefill,
    int prefillSamples,
    DecodeModel decode,
    int decodeSamples,
    double decodeFitMape,
    double decodeCvMape) {

  public ProfileRow {
    Objects.requireNonNull(iid, "iid");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(measuredAt, "measuredAt");
    Objects.requireNonNull(prefill, "prefill");
    Objects.requireNonNull(decode, "decode");
  }

  /** The row as the router prices with it. */
  public EngineProfile toProfile() {
    return new EngineProfile(iid, generation, prefill, decode, decodeFitMape, decodeCvMape);
  }
}
