package narwhal.core.fleet;

import java.util.concurrent.atomic.LongAdder;

/**
 * The requests offered to the fleet, counted as they start with their prompt tokens and wanted
 * output tokens, until the role controller drains the tally once per monitor interval into its
 * demand windows. Requests on every event loop record here, so it is adders and no lock; a drain
 * may split one arrival's fields across two samples (see {@link DecodePace}), which is harmless in
 * windows of many arrivals.
 */
public final class ArrivalTally {

  private final LongAdder arrivals = new LongAdder();
  private final LongAdder promptTokens = new LongAdder();
  private final LongAdder wantedTokens = new LongAdder();
  // This replica's own arrivals since it started, never drained: what it publishes to its peers,
  // whose deltas the elected controller adds with {@link #addPeers}.
  private final LongAdder ownArrivals = new LongAdder();
  private final LongAdder ownPromptTokens = new LongAdder();
  private final LongAdder ownWantedTokens = new LongAdder();

  /** A request started with {@code promptTokens} prompt tokens and asks for {@code wantedTokens}. */
  public void arrived(long promptTokens, long wantedTokens) {
    arrivals.increment();
    this.promptTokens.add(Math.max(0, promptTokens));
    this.wantedTokens.add(Math.max(0, wantedTokens));
    ownArrivals.increment();
    ownPromptTokens.add(Math.max(0, promptTokens));
    ownWantedTokens.add(Math.max(0, wantedTokens));
  }

  /**
   * Arrivals other router replicas counted (the growth of their published totals), so the role
   * controller's demand is the whole fleet's; they are drained with this replica's own.
   */
  public void addPeers(Arrivals peers) {
    arrivals.add(Math.max(0, peers.count()));
    promptTokens.add(Math.max(0, peers.promptTokens()));
    wantedTokens.add(Math.max(0, peers.wantedTokens()));
  }

  /** This replica's own arrivals since it started (never reset): what it publishes to its peers. */
  public Arrivals ownTotal() {
    return new Arrivals(ownArrivals.sum(), ownPromptTokens.sum(), ownWantedTokens.sum());
  }

  /** The arrivals counted since the last drain, and starts a new count. */
  public Arrivals drain() {
    return new Arrivals(arrivals.sumThenReset(), promptTokens.sumThenReset(), wantedTokens.sumThenReset());
  }

  /**
   * Arrivals over one sampling period.
   *
   * @param count requests that started
   * @param promptTokens their prompt tokens, summed
   * @param wantedTokens the output tokens they asked for, summed (0 for a request naming no limit)
   */
  public record Arrivals(long count, long promptTokens, long wantedTokens) {

    public static final Arrivals NONE = new Arrivals(0, 0, 0);

    public Arrivals plus(Arrivals other) {
      return new Arrivals(count + other.count, promptTokens + other.promptTokens, wantedTokens + other.wantedTokens);
    }
  }
}
