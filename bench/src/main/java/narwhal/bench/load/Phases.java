package narwhal.bench.load;

/**
 * Hooks the driver thread calls around the measurement window, so process accounting (CPU,
 * memory) covers exactly the window the latencies cover.
 */
public interface Phases {
  Phases NONE = new Phases() {};

  default void windowOpened() {}

  /** Called about every {@link LoadShape#sampleMillis()} while the window is open. */
  default void sample() {}

  default void windowClosed() {}
}
