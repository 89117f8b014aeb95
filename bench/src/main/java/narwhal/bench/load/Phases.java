package narwhal.bench.load;

/**
 * Hooks the driver thread calls around the measurement window, so process accounting (CPU,
 * memory) covers exactly the window the latencies cover.
 */
public interface Phases {
  Phases NONE = new Phases() {};

  /**
   * Called just before the window opens, for work that must not be inside it (attaching a
   * profiler takes a moment and CPU of its own).
   */
  default void windowOpening() {}

  default void windowOpened() {}

  /** Called about every {@link LoadShape#sampleMillis()} while the window is open. */
  default void sample() {}

  default void windowClosed() {}

  /** These hooks, then {@code next}'s, at each point. */
  default Phases andThen(Phases next) {
    Phases first = this;
    return new Phases() {
      @Override
      public void windowOpening() {
        first.windowOpening();
        next.windowOpening();
      }

      @Override
      public void windowOpened() {
        first.windowOpened();
        next.windowOpened();
      }

      @Override
      public void sample() {
        first.sample();
        next.sample();
      }

      @Override
      public void windowClosed() {
        first.windowClosed();
        next.windowClosed();
      }
    };
  }
}
