package narwhal.core.fleet;

/**
 * Resident work on one engine as one router replica holds it: the figures a replica publishes to
 * its peers, and (summed) what the peers hold as {@link EngineState#peerWork()}. A replica running
 * alone has {@link #NONE}.
 *
 * @param prefill prefill legs resident
 * @param decode decode legs resident
 * @param prefillTokens prompt tokens of those prefill legs
 * @param prefillTokenSquares Σ L² over them (L = each one's prompt tokens)
 * @param decodeTokens KV tokens (prompt plus wanted output) of the decode legs
 */
public record PeerWork(int prefill, int decode, long prefillTokens, long prefillTokenSquares, long decodeTokens) {

  public static final PeerWork NONE = new PeerWork(0, 0, 0, 0, 0);

  public PeerWork {
    // A peer's figures arrive over the network: never let a malformed one make a count negative.
    prefill = Math.max(0, prefill);
    decode = Math.max(0, decode);
    prefillTokens = Math.max(0, prefillTokens);
    prefillTokenSquares = Math.max(0, prefillTokenSquares);
    decodeTokens = Math.max(0, decodeTokens);
  }

  public PeerWork plus(PeerWork other) {
    return new PeerWork(prefill + other.prefill, decode + other.decode, prefillTokens + other.prefillTokens,
        saturatedAdd(prefillTokenSquares, other.prefillTokenSquares), decodeTokens + other.decodeTokens);
  }

  public boolean isEmpty() {
    return prefill == 0 && decode == 0;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }
}
