package narwhal.core.request;

import org.jspecify.annotations.Nullable;

/**
 * Where one request's time went, beyond the two contract timestamps the lifecycle keeps
 * ({@code ttft_s}, {@code first_byte_s}): time with an engine leg in flight ({@code
 * upstream_s}), time the router itself spent on the request (router overhead), decode legs
 * dispatched, and the token timestamps behind {@code tpot_s} and {@code decode_tpot_s}.
 *
 * <p><b>Router overhead</b> is the sum, over attempts, of (attempt start to prefill dispatch) and
 * (prefill completion to decode dispatch): placement, reservations, handoff validation and
 * request building. Queue waits, retry backoff and everything while a leg is in flight are
 * excluded, and so is relaying tokens (that runs at the client's pace).
 *
 * <p>Confined to the request's scheduler, like the lifecycle that owns it; times are {@code
 * loop.nanoTime()} values.
 */
final class RequestTimeline {

  private long workSince = -1;
  private long overheadNanos;
  private boolean dispatched;
  private long legSince = -1;
  private long upstreamNanos;
  private int decodeAttempts;
  private long prefillDoneAt = -1;
  private long firstTokenAt = -1;
  private long lastTokenAt = -1;
  private int tokens;

  /** An attempt begins (placement starts): router work from here. */
  void attemptStarted(long now) {
    workSince = now;
  }

  void prefillDispatched(long now) {
    routerWorkEnds(now);
    legSince = now;
  }

  /** The prefill leg ended, with a handoff or a failure. */
  void prefillDone(long now) {
    legEnded(now);
    prefillDoneAt = now;
    workSince = now;
  }

  /**
   * Both legs of a concurrent handoff were dispatched at once: router work ends, one leg span
   * starts (the attempt's upstream time runs until the last leg ends).
   */
  void legsDispatchedTogether(long now) {
    routerWorkEnds(now);
    legSince = now;
    decodeAttempts++;
  }

  /** The prefill of a concurrent handoff answered while its decode leg runs on. */
  void concurrentPrefillDone(long now) {
    prefillDoneAt = now;
  }

  void decodeDispatched(long now) {
    routerWorkEnds(now);
    legSince = now;
    decodeAttempts++;
  }

  /** A token arrived; returns the gap since the previous one, or -1 for the first. */
  long token(long now) {
    long gap = lastTokenAt < 0 ? -1 : now - lastTokenAt;
    if (firstTokenAt < 0) {
      firstTokenAt = now;
    }
    lastTokenAt = now;
    tokens++;
    return gap;
  }

  /** Whichever leg is in flight has ended (failure, completion or the request's end). */
  void legEnded(long now) {
    if (legSince >= 0) {
      upstreamNanos += now - legSince;
      legSince = -1;
    }
    workSince = -1;
  }

  int decodeAttempts() {
    return decodeAttempts;
  }

  long upstreamNanos() {
    return upstreamNanos;
  }

  /** Null when nothing was ever dispatched: there is no routing work to speak of. */
  @Nullable Long routerOverheadNanos() {
    return dispatched ? overheadNanos : null;
  }

  /** (last token - prefill completion) / (n - 1); null below two tokens. */
  @Nullable Long tpotNanos() {
    return tokens < 2 || prefillDoneAt < 0 ? null : (lastTokenAt - prefillDoneAt) / (tokens - 1);
  }

  /** (last token - first token) / (n - 1); null below two tokens. */
  @Nullable Long decodeTpotNanos() {
    return tokens < 2 ? null : (lastTokenAt - firstTokenAt) / (tokens - 1);
  }

  private void routerWorkEnds(long now) {
    if (workSince >= 0) {
      overheadNanos += now - workSince;
      workSince = -1;
    }
    dispatched = true;
  }
}
