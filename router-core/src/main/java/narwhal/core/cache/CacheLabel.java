package narwhal.core.cache;

/** How cache-aware placement placed a request's prefill: the journal's {@code cache_placement}. */
public enum CacheLabel {
  /** Placed on the engine holding the longest cached prefix of the prompt. */
  HIT("hit"),
  /** No engine was known to hold any block of the prompt: placed by load and price. */
  MISS("miss"),
  /**
   * An engine held a longer prefix, but the hot-prefix guard sent the prompt elsewhere: that
   * engine's projected time to first token was too far above the best other's.
   */
  SPILL("spill"),
  /** Placed with the approximate index (learned from the router's own placements, not events). */
  APPROXIMATE("approximate"),
  /** Cache-aware placement did not apply: {@code cache.mode: off}, or the prompt's token ids were not known. */
  OFF("off");

  private final String wireName;

  CacheLabel(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }
}
