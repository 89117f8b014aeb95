package narwhal.core.legs;

/**
 * Why an engine could not count a prompt: it did not answer in time, or answered with an error or
 * something without a count. Never an engine failure as the breaker sees them: counting is an
 * optimisation the router falls back from, not a leg of the request.
 */
public final class PromptCountFailure extends Exception {

  private static final long serialVersionUID = 1L;

  private final boolean timedOut;

  PromptCountFailure(String message, boolean timedOut) {
    super(message, null, false, false);
    this.timedOut = timedOut;
  }

  /** True when the count ran out of {@code engine.tokenize_timeout_s}; else the engine answered badly. */
  public boolean timedOut() {
    return timedOut;
  }
}
