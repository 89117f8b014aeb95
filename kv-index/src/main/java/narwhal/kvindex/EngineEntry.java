package narwhal.kvindex;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import narwhal.config.CacheEngineConfig;
import narwhal.prefix.IndexTrust;
import narwhal.prefix.PromptBlocks;
import org.jspecify.annotations.Nullable;

/**
 * Everything the index keeps for one engine: its blocks (from events, or approximate), its
 * self-check, and the health of its event feed. The subscriber thread writes the event side;
 * counters and flags are volatile or atomic so the state document and metrics read them anywhere.
 */
final class EngineEntry {

  final String iid;
  final CacheEngineConfig config;
  /** Null for an engine indexed approximately. */
  final @Nullable EventIndex events;
  /** Null for an engine indexed from events. */
  final @Nullable ApproximateIndex approximate;
  final SelfCheck check;

  /** The last sequence number applied, -1 before the first message (subscriber thread only writes). */
  volatile long lastSeq = -1;
  /** When the last message arrived ({@code clock} nanos), or Long.MIN_VALUE before any. */
  volatile long lastMessageNanos = Long.MIN_VALUE;
  /** Why the index was last dropped, or null if never. */
  volatile @Nullable String lastDrop;
  final LongAdder batches = new LongAdder();
  final LongAdder eventsApplied = new LongAdder();
  final LongAdder replays = new LongAdder();
  final LongAdder replayFailures = new LongAdder();
  /** Index drops (and restarts) by reason: the metric {@code narwhal_cache_index_drops_total}. */
  final Map<String, LongAdder> drops = new ConcurrentHashMap<>();
  final LongAdder predictions = new LongAdder();
  final LongAdder predictedTokens = new LongAdder();
  final LongAdder reportedTokens = new LongAdder();

  EngineEntry(String iid, CacheEngineConfig config, @Nullable EventIndex events,
      @Nullable ApproximateIndex approximate, SelfCheck check) {
    this.iid = iid;
    this.config = config;
    this.events = events;
    this.approximate = approximate;
    this.check = check;
    for (String reason : DropReason.ALL) {
      drops.put(reason, new LongAdder());
    }
  }

  boolean fromEvents() {
    return events != null;
  }

  int cachedBlocks(PromptBlocks prompt) {
    EventIndex e = events;
    if (e != null) {
      return e.cachedBlocks(prompt);
    }
    ApproximateIndex a = approximate;
    return a == null ? 0 : a.cachedBlocks(prompt);
  }

  int blocks() {
    EventIndex e = events;
    if (e != null) {
      return e.size();
    }
    ApproximateIndex a = approximate;
    return a == null ? 0 : a.size();
  }

  IndexTrust trust() {
    if (check.suspect()) {
      return IndexTrust.UNTRUSTED;
    }
    return fromEvents() ? IndexTrust.EVENTS : IndexTrust.APPROXIMATE;
  }

  void dropped(String reason) {
    drops.computeIfAbsent(reason, r -> new LongAdder()).increment();
    lastDrop = reason;
  }
}
