package narwhal.core.control;

/**
 * The arrivals of the last {@code reactive.window_s}.
 *
 * @param arrivals requests that started in the window
 * @param spanS the seconds the window covers (shorter than {@code window_s} just after start)
 * @param meanPromptTokens their mean prompt tokens
 * @param meanWantedTokens their mean wanted output tokens
 * @param scored whether the window holds at least {@code reactive.min_arrivals} arrivals
 */
record Demand(long arrivals, double spanS, double meanPromptTokens, double meanWantedTokens, boolean scored) {

  /** Arrivals per second over the window. */
  double rate() {
    return spanS > 0 ? arrivals / spanS : 0;
  }
}
