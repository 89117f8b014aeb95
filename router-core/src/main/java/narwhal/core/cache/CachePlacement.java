package narwhal.core.cache;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import narwhal.config.CacheConfig;
import narwhal.config.CacheMode;
import narwhal.prefix.PrefixCacheView;
import org.jspecify.annotations.Nullable;

/**
 * The router's cache-aware placement ({@code cache}): the index it asks (installed by the assembly
 * with {@link #use}; {@link PrefixCacheView#off()} until then), the affinity and guard, and what
 * each prefill's answer says about the prediction. Thread-safe; with {@code cache.mode: off} every
 * request gets {@link PromptCache#NONE} and nothing else happens.
 */
public final class CachePlacement {

  private final CacheConfig config;
  private final PrefillAffinity affinity;
  private volatile PrefixCacheView view = PrefixCacheView.off();
  private volatile @Nullable CacheMetrics metrics;
  /**
   * Engines whose answers have carried {@code prompt_tokens_details}: vLLM leaves it out when the
   * count is 0, so once an engine is known to report it, its absence means 0.
   */
  private final Set<String> reportsDetails = ConcurrentHashMap.newKeySet();

  public CachePlacement(CacheConfig config) {
    this.config = config;
    this.affinity = new PrefillAffinity(config.hotPrefixMargin());
  }

  public static CachePlacement off() {
    return new CachePlacement(CacheConfig.defaults());
  }

  /** Whether requests ask for their prompt's token ids and place by the cache ({@code cache.mode} not off). */
  public boolean enabled() {
    return config.mode() != CacheMode.OFF;
  }

  public CacheConfig config() {
    return config;
  }

  /** Installs the index; before, every prompt is uncached everywhere. */
  public void use(PrefixCacheView index) {
    this.view = index;
  }

  public PrefixCacheView view() {
    return view;
  }

  private volatile java.util.function.Supplier<java.util.Map<String, Object>> state = this::modeOnly;

  private java.util.Map<String, Object> modeOnly() {
    return java.util.Map.of("mode", config.mode().configName());
  }

  /** What {@code /narwhal/state}'s {@code cache} section says (the index describes itself). */
  public void describeWith(java.util.function.Supplier<java.util.Map<String, Object>> section) {
    this.state = section;
  }

  /** {@code /narwhal/state}'s {@code cache} section. */
  public java.util.Map<String, Object> state() {
    return state.get();
  }

  /** Records placements and predictions in {@code m} from now on. */
  public void record(CacheMetrics m) {
    this.metrics = m;
  }

  public PrefillAffinity affinity() {
    return affinity;
  }

  /** The request's prompt for placement: {@link PromptCache#NONE} when off or its token ids are unknown. */
  public PromptCache prompt(int @Nullable [] tokenIds) {
    if (!enabled() || tokenIds == null || tokenIds.length == 0) {
      return PromptCache.NONE;
    }
    PrefixCacheView v = view;
    return new PromptCache(v, v.blocks(tokenIds));
  }

  /** Counts one prefill placement. */
  public void placed(CacheLabel label) {
    CacheMetrics m = metrics;
    if (m != null) {
      m.placed(label);
    }
  }

  /**
   * A prefill answered: what its engine reported cached ({@code reported}, -1 when its answer had no
   * details) against what the index predicted there. Feeds the self-check and the metrics when the
   * report is usable, and returns the journal's {@code cached_tokens}: the reported count, 0 when
   * the engine is known to report and left it out (vLLM omits 0), null when it never reports.
   */
  public @Nullable Long answered(String iid, PromptCache prompt, int predicted, long reported) {
    Long cached;
    if (reported >= 0) {
      reportsDetails.add(iid);
      cached = reported;
    } else {
      cached = reportsDetails.contains(iid) ? 0L : null;
    }
    if (cached != null && prompt.active()) {
      view.checked(iid, predicted, cached);
      CacheMetrics m = metrics;
      if (m != null) {
        m.checked(iid, predicted, cached);
      }
    }
    return cached;
  }
}
