package narwhal.prefix;

/** How far placement may rely on what an engine's index says it holds. */
public enum IndexTrust {
  /** Fed by the engine's own KV events, and its predictions agree with what the engine reports. */
  EVENTS("events"),
  /** Learned from the router's own placements, with a time to live (the engine publishes no events). */
  APPROXIMATE("approximate"),
  /**
   * Not to be used: no events reach the router yet, the index was dropped after a fault, or the
   * self-check found its predictions diverge from what the engine reports. Placement prices this
   * engine as if it held nothing.
   */
  UNTRUSTED("untrusted");

  private final String wireName;

  IndexTrust(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }
}
