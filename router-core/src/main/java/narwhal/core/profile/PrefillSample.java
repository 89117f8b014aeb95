package narwhal.core.profile;

/**
 * One prefill measurement: how long an engine took to prefill a prompt alone.
 *
 * @param promptTokens the prompt's length in tokens
 * @param seconds the wall time of the prefill leg (the median of its repeats)
 */
public record PrefillSample(long promptTokens, double seconds) {

  public PrefillSample {
    if (promptTokens < 1 || !(seconds > 0) || !Double.isFinite(seconds)) {
      throw new IllegalArgumentException("a prefill sample needs tokens >= 1 and seconds > 0, got "
          + promptTokens + " tokens, " + seconds + " s");
    }
  }
}
