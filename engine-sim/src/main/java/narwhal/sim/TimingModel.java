package narwhal.sim;

/**
 * The simulator's latency model, as pure functions of the options and the request, so it can be
 * checked exactly without a clock:
 *
 * <ul>
 *   <li>time to the first token: {@code prefillBaseMillis + prefillMillisPerToken * promptTokens},
 *       or, for a decode that pulls its KV from a producer instead of computing the prompt, {@code
 *       kvTransferMillisPerToken * promptTokens};
 *   <li>time between tokens: {@code interTokenMillis * (1 + loadFactor * activeStreams)}, a crude
 *       stand-in for a batch that slows every stream as it grows.
 * </ul>
 */
final class TimingModel {

  private TimingModel() {}

  /** Nanoseconds from the start of a response to its first token. */
  static long firstTokenDelayNanos(SimOptions options, int promptTokens, boolean pullsKv) {
    double millis =
        pullsKv
            ? options.kvTransferMillisPerToken() * promptTokens
            : options.prefillBaseMillis() + options.prefillMillisPerToken() * promptTokens;
    return millisToNanos(millis);
  }

  /** Nanoseconds between two tokens while {@code activeStreams} streams are being generated. */
  static long interTokenNanos(SimOptions options, long activeStreams) {
    double slowdown = 1 + options.loadFactor() * activeStreams;
    return millisToNanos(options.interTokenMillis() * slowdown);
  }

  static long millisToNanos(double millis) {
    return Math.round(millis * 1_000_000);
  }
}
