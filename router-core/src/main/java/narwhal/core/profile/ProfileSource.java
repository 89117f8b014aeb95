package narwhal.core.profile;

import java.util.Locale;

/** Where the profile an engine is priced with comes from, as {@code /narwhal/state} shows it. */
public enum ProfileSource {
  /** The engine's own row, measured on the process it runs now (or one that reports no generation). */
  OWN,
  /**
   * The fleet's profile (the median of every fresh row's coefficients): the engine's own row is
   * missing or stale.
   */
  FLEET,
  /** No profile at all: no own row and no fresh row in the fleet to stand in. */
  NONE;

  /** {@code "own"}, {@code "fleet"}, {@code "none"}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
