package narwhal.config;

import org.jspecify.annotations.Nullable;

/**
 * The optional {@code continuation} section (opt-in stream continuation after committed output).
 *
 * @param enabled whether continuation may run at all
 * @param maxAttempts continuation attempts per request
 * @param qualificationSha256 the digest of the qualification evidence, or null
 */
public record ContinuationConfig(
    boolean enabled, int maxAttempts, @Nullable String qualificationSha256) {

  public static ContinuationConfig defaults() {
    return new ContinuationConfig(false, 1, null);
  }
}
