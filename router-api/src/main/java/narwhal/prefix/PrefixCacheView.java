package narwhal.prefix;

/**
 * Which leading tokens of a prompt each engine holds in its prefix cache, as the router's index
 * believes. Placement and admission read it on the event loops: every method is thread-safe and
 * non-blocking (the index is updated off the request path and read without locks).
 */
public interface PrefixCacheView {

  /** The prompt's full blocks under the index's chain hash; call once per request. */
  PromptBlocks blocks(int[] tokenIds);

  /**
   * Leading tokens of {@code prompt} that engine {@code iid} holds, as vLLM would count its
   * prefix-cache hit: whole blocks only, at most {@link PromptBlocks#maxHitBlocks()} of them; 0 for
   * an engine the index does not know.
   */
  int cachedTokens(String iid, PromptBlocks prompt);

  /** Whether placement may use {@link #cachedTokens} for {@code iid} now. */
  IndexTrust trust(String iid);

  /**
   * The router sent {@code prompt} to {@code iid} (its prefill, or a decode that receives the
   * prompt's KV): an index that learns from placements (approximate mode) records it; an index fed
   * by events ignores it.
   */
  void placed(String iid, PromptBlocks prompt);

  /**
   * The self-check: engine {@code iid} reported {@code reportedTokens} cached tokens for a prefill
   * the index predicted {@code predictedTokens} for.
   */
  void checked(String iid, long predictedTokens, long reportedTokens);

  /** The view of a router without cache-aware placement: nothing is ever cached. */
  static PrefixCacheView off() {
    return OffView.INSTANCE;
  }

  /** {@link #off()}. */
  enum OffView implements PrefixCacheView {
    INSTANCE;

    @Override
    public PromptBlocks blocks(int[] tokenIds) {
      return PromptBlocks.NONE;
    }

    @Override
    public int cachedTokens(String iid, PromptBlocks prompt) {
      return 0;
    }

    @Override
    public IndexTrust trust(String iid) {
      return IndexTrust.UNTRUSTED;
    }

    @Override
    public void placed(String iid, PromptBlocks prompt) {}

    @Override
    public void checked(String iid, long predictedTokens, long reportedTokens) {}
  }
}
