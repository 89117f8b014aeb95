package narwhal.sim.gpu;

import org.jspecify.annotations.Nullable;

/**
 * What a response asks of the step loop.
 *
 * @param promptTokens the prompt's length
 * @param outputTokens tokens to produce before the sequence is done
 * @param promptResident true when the prompt's KV comes from another engine (a disaggregated
 *     decode leg): the sequence joins the batch decoding, holding its prompt's KV, with no prefill
 * @param kvTransferNanos for a resident prompt, how long its KV takes to arrive; the wait is off
 *     the step loop (transfers are asynchronous), the sequence joins the waiting queue after it
 * @param leaseId when not null, a finished sequence keeps its KV resident under this id until
 *     {@link StepLoop#releaseLease} or the lease expires (a prefill leg whose KV a decode will
 *     pull); {@link Sequence#cancel()} drops it too
 */
public record SequenceSpec(
    int promptTokens, int outputTokens, boolean promptResident, long kvTransferNanos, @Nullable String leaseId) {

  public SequenceSpec {
    if (promptTokens < 1) {
      throw new IllegalArgumentException("promptTokens must be at least 1, got " + promptTokens);
    }
    if (outputTokens < 1) {
      throw new IllegalArgumentException("outputTokens must be at least 1, got " + outputTokens);
    }
    if (kvTransferNanos < 0 || (kvTransferNanos > 0 && !promptResident)) {
      throw new IllegalArgumentException("a KV transfer time needs a resident prompt, got " + kvTransferNanos);
    }
  }

  /** A request that computes its own prompt. */
  public static SequenceSpec prefill(int promptTokens, int outputTokens) {
    return new SequenceSpec(promptTokens, outputTokens, false, 0, null);
  }

  /** A decode leg whose prompt's KV arrives from a producer after {@code kvTransferNanos}. */
  public static SequenceSpec pulled(int promptTokens, int outputTokens, long kvTransferNanos) {
    return new SequenceSpec(promptTokens, outputTokens, true, kvTransferNanos, null);
  }

  /** The same request, its KV kept under {@code leaseId} once it is done. */
  public SequenceSpec leased(String leaseId) {
    return new SequenceSpec(promptTokens, outputTokens, promptResident, kvTransferNanos, leaseId);
  }

  /** KV tokens the sequence holds at its largest. */
  long peakKvTokens() {
    return (long) promptTokens + outputTokens;
  }
}
