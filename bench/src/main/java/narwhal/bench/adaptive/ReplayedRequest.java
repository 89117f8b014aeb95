package narwhal.bench.adaptive;

import org.jspecify.annotations.Nullable;

/**
 * What the client saw of one request, by the client contract (narwhal-behaviour section 5): TTFT
 * from sending to the first token carrying an id, TPOT from the first to the last token over n−1,
 * complete when every requested token and {@code [DONE]} arrived. A refusal or failure is kept
 * with its status, and counts as a miss.
 */
record ReplayedRequest(
    Trace.Arrival arrival, int status, int tokens, boolean done, double ttftS, double tpotS,
    @Nullable String error) {

  boolean complete() {
    return status == 200 && done && tokens == arrival.outputTokens();
  }

  /** Met both SLOs and completed. */
  boolean met(double sloTtftS, double sloTpotS) {
    return complete() && ttftS <= sloTtftS && (tokens < 2 || tpotS <= sloTpotS);
  }
}
