package narwhal.spi;

/** A running exchange with an engine. Methods may be called from the exchange's loop only. */
public interface Exchange {

  /**
   * Abandons the exchange: the engine connection is closed promptly (so the engine sees the
   * request aborted) and no further handler callback arrives. Safe to call more than once.
   */
  void cancel();

  /** Stops reading the response (backpressure toward the engine). */
  void pause();

  /** Resumes reading after {@link #pause()}. */
  void resume();
}
