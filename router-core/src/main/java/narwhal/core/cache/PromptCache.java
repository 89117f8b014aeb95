package narwhal.core.cache;

import java.util.IdentityHashMap;
import java.util.Map;
import narwhal.core.fleet.EngineState;
import narwhal.prefix.IndexTrust;
import narwhal.prefix.PrefixCacheView;
import narwhal.prefix.PromptBlocks;

/**
 * One request's prompt as the prefix-cache index sees it: its blocks (hashed once), and per engine
 * the tokens the index predicts are cached there. {@link #predicted} is what the index says, for
 * the journal and the self-check; {@link #usable} is what placement may count on, 0 for an engine
 * whose index is not to be trusted now. Lookups are remembered for the current placement round
 * ({@link #newRound}), so ranking the fleet asks the index once per engine. Confined to the
 * request's loop.
 */
public final class PromptCache {

  /** A request cache-aware placement does not apply to. */
  static final PromptCache NONE = new PromptCache(PrefixCacheView.off(), PromptBlocks.NONE);

  private final PrefixCacheView view;
  private final PromptBlocks blocks;
  private final Map<EngineState, Integer> round = new IdentityHashMap<>();

  PromptCache(PrefixCacheView view, PromptBlocks blocks) {
    this.view = view;
    this.blocks = blocks;
  }

  /** Whether cache-aware placement applies to this request. */
  public boolean active() {
    return this != NONE;
  }

  public PromptBlocks blocks() {
    return blocks;
  }

  /** Forgets the lookups of the last placement round: the index may have changed since. */
  public void newRound() {
    round.clear();
  }

  /** The tokens the index predicts {@code engine}'s prefix cache holds of this prompt. */
  public int predicted(EngineState engine) {
    if (!active()) {
      return 0;
    }
    Integer known = round.get(engine);
    if (known == null) {
      known = view.cachedTokens(engine.iid(), blocks);
      round.put(engine, known);
    }
    return known;
  }

  /** {@link #predicted}, or 0 when placement may not rely on {@code engine}'s index now. */
  public int usable(EngineState engine) {
    return active() && trust(engine) != IndexTrust.UNTRUSTED ? predicted(engine) : 0;
  }

  public IndexTrust trust(EngineState engine) {
    return view.trust(engine.iid());
  }

  /** The prompt went to {@code engine} (its prefill, or a decode receiving its KV): an approximate index learns it. */
  public void placedOn(EngineState engine) {
    if (active()) {
      view.placed(engine.iid(), blocks);
    }
  }
}
