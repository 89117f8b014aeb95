package narwhal.core.profile;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One engine's measured latency models, bound to the engine process they were measured on.
 *
 * @param iid the engine
 * @param generation the engine process's generation when measured (from its attestation), or
 *     null when the engine reports none; a different generation means the row may be stale
 * @param prefill prefill time against prompt length
 * @param decode decode interval against resident tokens and active sequences
 * @param decodeFitMape the decode fit's mean absolute percentage error on its own samples
 * @param decodeCvMape the decode fit's cross-validated error (each sample predicted by a fit
 *     without it)
 */
public record EngineProfile(
    String iid,
    @Nullable String generation,
    PrefillModel prefill,
    DecodeModel decode,
    double decodeFitMape,
    double decodeCvMape) {

  public EngineProfile {
    Objects.requireNonNull(iid, "iid");
    Objects.requireNonNull(prefill, "prefill");
    Objects.requireNonNull(decode, "decode");
  }
}
