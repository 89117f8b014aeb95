package narwhal.sim.gpu;

/**
 * What a {@link StepLoop} tells the response a {@link Sequence} belongs to. Every call runs on the
 * executor given with the sequence (the response's own event loop), never on the step loop's.
 */
public interface SequenceListener {

  /**
   * The sequence produced one more token: the first at the end of the step that completed its
   * prompt, then one per step that decoded it.
   */
  void tokenProduced();

  /**
   * The KV the sequence pulls from its producer has arrived (only for a {@link
   * SequenceSpec#kvTransferNanos() transferring} sequence); it now waits to join the batch.
   */
  default void kvArrived() {}
}
