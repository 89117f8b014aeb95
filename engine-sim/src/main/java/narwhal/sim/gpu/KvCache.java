package narwhal.sim.gpu;

import org.jspecify.annotations.Nullable;

/**
 * The engine's KV cache as a count of tokens. It only counts: the step loop decides who holds
 * what, and this refuses to go above its capacity or below zero, so a double free or an
 * overcommit shows up at once instead of as a drifting gauge. With a {@link PrefixCache}, cached
 * blocks' tokens are part of what is used, and its idle blocks are room to be had: {@link #free}
 * counts them, and {@link #allocate} evicts them (least recently freed first) when it needs to.
 * Confined to the step loop.
 */
final class KvCache {
  private final long capacity;
  private final @Nullable PrefixCache prefix;
  private long used;

  KvCache(long capacity, @Nullable PrefixCache prefix) {
    this.capacity = capacity;
    this.prefix = prefix;
  }

  long capacity() {
    return capacity;
  }

  long used() {
    return used;
  }

  /** Room for new tokens: what is unused plus what evicting idle cached blocks would give. */
  long free() {
    return capacity - used + (prefix == null ? 0 : prefix.idleTokens());
  }

  void allocate(long tokens) {
    if (tokens < 0) {
      throw new IllegalStateException("KV overcommit: negative " + tokens);
    }
    if (used + tokens > capacity && prefix != null) {
      used -= prefix.evict(used + tokens - capacity);
    }
    if (used + tokens > capacity) {
      throw new IllegalStateException("KV overcommit: " + used + " + " + tokens + " > " + capacity);
    }
    used += tokens;
  }

  void release(long tokens) {
    if (tokens < 0 || tokens > used) {
      throw new IllegalStateException("KV released twice: " + tokens + " > " + used + " in use");
    }
    used -= tokens;
  }
}
