package narwhal.core.profile;

/**
 * How long an engine takes to prefill a prompt: {@code base + perToken·L + perTokenSquared·L²}
 * seconds for L prompt tokens. The quadratic term is attention's cost growing with the context.
 *
 * @param baseS the fixed cost of a prefill step
 * @param perTokenS the linear cost per prompt token
 * @param perTokenSquaredS the quadratic cost per prompt token squared
 * @param minTokens the shortest prompt the model was measured on
 * @param maxTokens the longest prompt the model was measured on
 */
public record PrefillModel(double baseS, double perTokenS, double perTokenSquaredS, long minTokens, long maxTokens) {

  public PrefillModel {
    if (!(baseS >= 0) || !(perTokenS >= 0) || !(perTokenSquaredS >= 0)) {
      throw new IllegalArgumentException("prefill coefficients must be non-negative numbers");
    }
  }

  /** Predicted seconds to prefill {@code tokens} prompt tokens (0 for none). */
  public double seconds(long tokens) {
    if (tokens <= 0) {
      return 0;
    }
    double l = tokens;
    return baseS + perTokenS * l + perTokenSquaredS * l * l;
  }

  /**
   * Predicted seconds to prefill a prompt of {@code tokens} whose first {@code cachedTokens} the
   * engine's prefix cache holds: the fixed cost, the linear cost of the uncached tokens, and the
   * attention of the uncached tokens over the whole context ({@code L² − c²}). Equal to {@link
   * #seconds(long)} with nothing cached.
   */
  public double seconds(long tokens, long cachedTokens) {
    long c = Math.max(0, Math.min(cachedTokens, tokens));
    if (c == 0) {
      return seconds(tokens);
    }
    double l = tokens;
    double k = c;
    return baseS + perTokenS * (l - k) + perTokenSquaredS * (l * l - k * k);
  }

  /** True when {@code tokens} lies inside the measured domain (outside it the model extrapolates). */
  public boolean covers(long tokens) {
    return tokens >= minTokens && tokens <= maxTokens;
  }
}
