package narwhal.sim.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's prefix cache, as vLLM's block pool keeps it: full blocks of {@code blockSize}
 * tokens, each identified by a hash chained over its parent and its token ids ({@link
 * BlockHashes}). A block a running (or leased) sequence holds is referenced; when the last holder
 * lets go it stays cached but idle, in least-recently-freed order, and is evicted only when the KV
 * cache needs its room (the blocks at the tail of a freed sequence go before its prefix, as vLLM
 * frees them in reverse). Every block stored and evicted becomes an event ({@link KvCacheEvent}),
 * collected until {@link #drainEvents}.
 *
 * <p>Its tokens are part of the {@link KvCache}'s ledger: a cached block's tokens count as used
 * until it is evicted, and idle blocks count as free for anyone who needs the room. Confined to the
 * step loop.
 */
final class PrefixCache {

  /** A cached block. */
  static final class Block {
    final long hash;
    int refs;

    Block(long hash) {
      this.hash = hash;
    }
  }

  private final int blockSize;
  private final Map<Long, Block> byHash = new HashMap<>();
  /** Blocks no one holds, oldest first: the next to be evicted. */
  private final LinkedHashMap<Long, Block> idle = new LinkedHashMap<>();
  private final List<KvCacheEvent> pending = new ArrayList<>();
  private long hits;
  private long queries;

  PrefixCache(int blockSize) {
    this.blockSize = blockSize;
  }

  int blockSize() {
    return blockSize;
  }

  /** Tokens in idle blocks: reclaimable by eviction. */
  long idleTokens() {
    return (long) idle.size() * blockSize;
  }

  /** Blocks cached (held or idle). */
  int blocks() {
    return byHash.size();
  }

  /** Leading blocks of {@code hashes} cached, at most {@code max}. */
  int lookup(long[] hashes, int max) {
    int n = 0;
    while (n < max && n < hashes.length && byHash.containsKey(hashes[n])) {
      n++;
    }
    return n;
  }

  /** Tokens the idle blocks among the first {@code n} of {@code hashes} hold (they stop being reclaimable once held). */
  long idleTokensAmong(long[] hashes, int n) {
    long t = 0;
    for (int i = 0; i < n; i++) {
      if (idle.containsKey(hashes[i])) {
        t += blockSize;
      }
    }
    return t;
  }

  /** Takes a reference on block {@code hash} (it must be cached). */
  Block acquire(long hash) {
    Block b = byHash.get(hash);
    if (b == null) {
      throw new IllegalStateException("block not cached: " + hash);
    }
    if (b.refs++ == 0) {
      idle.remove(hash);
    }
    return b;
  }

  /** A block no one had cached before, stored with one reference; null when the hash is cached already. */
  Block store(long hash) {
    if (byHash.containsKey(hash)) {
      return null;
    }
    Block b = new Block(hash);
    b.refs = 1;
    byHash.put(hash, b);
    return b;
  }

  /** Lets go of {@code blocks}, last first (so a sequence's tail is evicted before its prefix). */
  void release(List<Block> blocks) {
    for (int i = blocks.size() - 1; i >= 0; i--) {
      Block b = blocks.get(i);
      if (b.refs <= 0) {
        throw new IllegalStateException("block released twice: " + b.hash);
      }
      if (--b.refs == 0) {
        idle.put(b.hash, b);
      }
    }
  }

  /**
   * Evicts idle blocks, least recently freed first, until {@code tokens} are reclaimed or none is
   * left; returns the tokens reclaimed.
   */
  long evict(long tokens) {
    long reclaimed = 0;
    List<Long> removed = new ArrayList<>();
    Iterator<Block> it = idle.values().iterator();
    while (reclaimed < tokens && it.hasNext()) {
      Block b = it.next();
      it.remove();
      byHash.remove(b.hash);
      removed.add(b.hash);
      reclaimed += blockSize;
    }
    if (!removed.isEmpty()) {
      pending.add(new KvCacheEvent.Removed(removed.stream().mapToLong(Long::longValue).toArray()));
    }
    return reclaimed;
  }

  /**
   * Drops every cached block (vLLM's {@code reset_prefix_cache}), only while no sequence holds one,
   * as vLLM refuses otherwise; returns the tokens freed, or -1 when refused.
   */
  long reset() {
    if (idle.size() != byHash.size()) {
      return -1;
    }
    long freed = idleTokens();
    idle.clear();
    byHash.clear();
    pending.add(new KvCacheEvent.Cleared());
    return freed;
  }

  void stored(KvCacheEvent.Stored event) {
    pending.add(event);
  }

  void countLookup(int promptBlocks, int hitBlocks) {
    queries += promptBlocks;
    hits += hitBlocks;
  }

  long hitBlocks() {
    return hits;
  }

  long queriedBlocks() {
    return queries;
  }

  boolean hasEvents() {
    return !pending.isEmpty();
  }

  List<KvCacheEvent> drainEvents() {
    List<KvCacheEvent> out = List.copyOf(pending);
    pending.clear();
    return out;
  }
}
