package narwhal.kvindex;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import narwhal.prefix.PromptBlocks;

/**
 * One engine's prefix cache as its KV events describe it: the blocks it holds, keyed by the
 * router's {@link ChainHash} of their token ids. The subscriber thread applies events ({@link
 * #apply}, {@link #clear}); placement reads on the event loops ({@link #cachedBlocks}) from a
 * concurrent set, without locks.
 *
 * <p>A stored block is indexed only when its parent is known (the prompt's first block, or a block
 * indexed before): the router's chain over token ids cannot name a block whose ancestors it never
 * saw, and never guesses. Blocks the engine evicts ({@code BlockRemoved}) leave; an engine may
 * store one hash twice (two requests computed the same prefix at once) and evicts each copy
 * separately, so a block stays until its last copy goes. At most {@code capacity} blocks are kept:
 * past it the least recently stored go first.
 *
 * <p>Writes: the subscriber thread only. Reads: any thread.
 */
final class EventIndex {

  /** What the engine told the index about one of its block hashes. */
  private static final class Block {
    final long engineHash;
    final long routerHash;
    int copies = 1;
    long storedSeq;

    Block(long engineHash, long routerHash) {
      this.engineHash = engineHash;
      this.routerHash = routerHash;
    }
  }

  private final int blockSize;
  private final int capacity;
  /** The router hashes of the blocks held: what readers see. */
  private final Set<Long> held = ConcurrentHashMap.newKeySet();
  /** Writer only: the engine's hash of each indexed block. */
  private final Map<Long, Block> byEngineHash = new HashMap<>();
  /** Writer only: blocks in the order they were (last) stored, with stale entries skipped lazily. */
  private final ArrayDeque<Block> storeOrder = new ArrayDeque<>();
  private final ArrayDeque<Long> storeSeqs = new ArrayDeque<>();
  private long nextSeq;

  /** Writer-kept tallies, read by metrics and the state document. */
  private volatile long orphanBlocks;
  private volatile long evictedForCapacity;
  private volatile long unknownRemovals;
  private volatile long foreignBlocks;

  EventIndex(int blockSize, int capacity) {
    this.blockSize = blockSize;
    this.capacity = capacity;
  }

  /** Blocks held now. */
  int size() {
    return held.size();
  }

  long orphanBlocks() {
    return orphanBlocks;
  }

  long evictedForCapacity() {
    return evictedForCapacity;
  }

  long unknownRemovals() {
    return unknownRemovals;
  }

  /** Blocks of events the chain over token ids cannot name (LoRA, extra keys, other media or groups). */
  long foreignBlocks() {
    return foreignBlocks;
  }

  /** Leading blocks of {@code prompt} this engine holds (at most its {@link PromptBlocks#maxHitBlocks()}). Any thread. */
  int cachedBlocks(PromptBlocks prompt) {
    int max = prompt.maxHitBlocks();
    int n = 0;
    while (n < max && held.contains(prompt.hash(n))) {
      n++;
    }
    return n;
  }

  /** Applies one decoded event. Writer only. */
  void apply(KvEvent event) {
    if (event instanceof KvEvent.BlockStored stored) {
      store(stored);
    } else if (event instanceof KvEvent.BlockRemoved removed) {
      if (removed.gpu()) {
        for (long h : removed.blockHashes()) {
          remove(h);
        }
      }
    } else if (event instanceof KvEvent.AllBlocksCleared) {
      clear();
    }
    // Unknown event types are ignored.
  }

  /** Forgets everything. Writer only. */
  void clear() {
    held.clear();
    byEngineHash.clear();
    storeOrder.clear();
    storeSeqs.clear();
  }

  private void store(KvEvent.BlockStored e) {
    if (e.blockSize() != blockSize) {
      foreignBlocks += e.blockHashes().length;
      return; // checked by the subscriber first; a block of another size can never match a prompt
    }
    long parent;
    if (!e.hasParent()) {
      parent = ChainHash.ROOT;
    } else {
      Block p = byEngineHash.get(e.parentHash());
      if (p == null) {
        orphanBlocks += e.blockHashes().length;
        return;
      }
      parent = p.routerHash;
    }
    long[] hashes = e.blockHashes();
    for (int i = 0; i < hashes.length; i++) {
      if (!e.indexable()[i]) {
        // Its identity is more than its tokens: neither it nor anything chained after it is nameable.
        foreignBlocks += hashes.length - i;
        return;
      }
      long routerHash = ChainHash.next(parent, e.tokenIds(), i * blockSize, blockSize);
      Block known = byEngineHash.get(hashes[i]);
      if (known != null) {
        known.copies++;
        touch(known);
      } else {
        Block b = new Block(hashes[i], routerHash);
        byEngineHash.put(hashes[i], b);
        held.add(routerHash);
        touch(b);
      }
      parent = routerHash;
    }
    while (byEngineHash.size() > capacity) {
      evictOldest();
    }
  }

  private void touch(Block b) {
    b.storedSeq = nextSeq++;
    storeOrder.addLast(b);
    storeSeqs.addLast(b.storedSeq);
    if (storeOrder.size() > 2 * Math.max(capacity, 1024)) {
      compact();
    }
  }

  /** Drops the stale entries of the store order (blocks stored again later, or gone). */
  private void compact() {
    int n = storeOrder.size();
    for (int i = 0; i < n; i++) {
      Block b = storeOrder.pollFirst();
      long seq = storeSeqs.pollFirst();
      if (b.storedSeq == seq && byEngineHash.get(b.engineHash) == b) {
        storeOrder.addLast(b);
        storeSeqs.addLast(seq);
      }
    }
  }

  private void evictOldest() {
    while (!storeOrder.isEmpty()) {
      Block b = storeOrder.pollFirst();
      long seq = storeSeqs.pollFirst();
      if (b.storedSeq == seq && byEngineHash.get(b.engineHash) == b) {
        byEngineHash.remove(b.engineHash);
        held.remove(b.routerHash);
        evictedForCapacity++;
        return;
      }
    }
  }

  private void remove(long engineHash) {
    Block b = byEngineHash.get(engineHash);
    if (b == null) {
      unknownRemovals++;
      return;
    }
    if (--b.copies > 0) {
      return;
    }
    byEngineHash.remove(engineHash);
    held.remove(b.routerHash);
  }
}
