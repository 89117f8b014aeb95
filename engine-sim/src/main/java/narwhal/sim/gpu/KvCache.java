package narwhal.sim.gpu;

/**
 * The engine's KV cache as a count of tokens. It only counts: the step loop decides who holds
 * what, and this refuses to go above its capacity or below zero, so a double free or an
 * overcommit shows up at once instead of as a drifting gauge. Confined to the step loop.
 */
final class KvCache {
  private final long capacity;
  private long used;

  KvCache(long capacity) {
    this.capacity = capacity;
  }

  long capacity() {
    return capacity;
  }

  long used() {
    return used;
  }

  long free() {
    return capacity - used;
  }

  void allocate(long tokens) {
    if (tokens < 0 || used + tokens > capacity) {
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
