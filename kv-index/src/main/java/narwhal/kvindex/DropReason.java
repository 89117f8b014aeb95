package narwhal.kvindex;

import java.util.List;

/** Why an engine's index was dropped (the label of {@code narwhal_cache_index_drops_total}). */
final class DropReason {
  /** A message that was not three frames, or whose sequence frame was not 8 bytes. */
  static final String FRAMES = "frames";
  /** A payload that is not a readable event batch. */
  static final String MALFORMED = "malformed";
  /** Messages were missed and the replay socket could not fill the gap. */
  static final String GAP = "gap";
  /** The sequence went backwards: the publisher restarted (a new engine process). */
  static final String RESTART = "restart";
  /** The engine said {@code AllBlocksCleared}. */
  static final String CLEARED = "cleared";
  /** Events for a block size other than {@code cache.block_size}. */
  static final String BLOCK_SIZE = "block_size";
  /** The router learned the engine restarted (a new process generation, a readmission). */
  static final String ENGINE_RESTART = "engine_restart";

  static final List<String> ALL = List.of(FRAMES, MALFORMED, GAP, RESTART, CLEARED, BLOCK_SIZE, ENGINE_RESTART);

  private DropReason() {}
}
