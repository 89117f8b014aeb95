package narwhal.core.profile;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Which profile an engine is priced with, and why.
 *
 * @param source own row, the fleet's profile, or none
 * @param reason why not its own row (a stale generation, no row), or a note on an own row whose
 *     generation could not be checked; null for an own row bound to the generation it runs
 * @param profile the profile to price with: the own row, the fleet's profile under the engine's
 *     iid, or null for {@link ProfileSource#NONE}
 */
public record ProfileStatus(ProfileSource source, @Nullable String reason, @Nullable EngineProfile profile) {

  public ProfileStatus {
    Objects.requireNonNull(source, "source");
    if ((source == ProfileSource.NONE) != (profile == null)) {
      throw new IllegalArgumentException("a profile is held exactly when the source is not none");
    }
  }

  /** No profile, for {@code reason}. */
  public static ProfileStatus none(String reason) {
    return new ProfileStatus(ProfileSource.NONE, reason, null);
  }
}
