package narwhal.core.control;

/**
 * One closed arrival-evidence window.
 *
 * @param spanS the seconds it covered
 * @param arrivals requests that started in it
 * @param wantedTokens the output tokens they asked for, summed
 * @param sufficient whether it saw {@code reactive.evidence_min_arrivals} arrivals (a window that
 *     reached {@code evidence_max_span_s} with fewer closes thin)
 */
record EvidenceWindow(double spanS, long arrivals, long wantedTokens, boolean sufficient) {

  /** Arrivals per second. */
  double rate() {
    return spanS > 0 ? arrivals / spanS : 0;
  }

  /** Decode demand: wanted output tokens per second. */
  double decodeDemand() {
    return spanS > 0 ? wantedTokens / spanS : 0;
  }
}
