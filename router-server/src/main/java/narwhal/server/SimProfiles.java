package narwhal.server;

import java.time.Instant;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileRow;
import narwhal.sim.SimOptions;
import org.jspecify.annotations.Nullable;

/**
 * The profile of a simulated engine, read off its options rather than measured: the simulator's
 * timing is {@code prefillBaseMillis + prefillMillisPerToken·L} to the first token and {@code
 * interTokenMillis·(1 + loadFactor·streams)} between tokens, which are the profile models with no
 * quadratic and no per-resident-token term. What {@code narwhal profile} would converge to on an
 * idle machine; {@code narwhal demo} serves with it, and tests that need a profiled fleet use it.
 */
final class SimProfiles {

  /** Sequences the row claims to cover: what a simulated engine runs at once without a limit of its own. */
  static final int MAX_SEQUENCES = 256;

  private SimProfiles() {}

  /**
   * @param generation the process generation the engine reports (its attestation document's
   *     {@code process_generation}), or null for none
   */
  static ProfileRow exact(String iid, String url, SimOptions o, @Nullable String generation, Instant at) {
    PrefillModel prefill = new PrefillModel(o.prefillBaseMillis() / 1000, o.prefillMillisPerToken() / 1000, 0, 1,
        o.maxModelLen());
    DecodeModel decode = new DecodeModel(o.interTokenMillis() / 1000, 0, o.interTokenMillis() * o.loadFactor() / 1000,
        (long) o.kvCacheBlocks() * 16, MAX_SEQUENCES);
    return new ProfileRow(iid, url, generation, at, prefill, 1, decode, 1, 0, 0);
  }
}
