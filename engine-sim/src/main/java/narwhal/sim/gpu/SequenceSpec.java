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
 * @param tokenIds the prompt's token ids followed by those of the output it will produce, or null:
 *     with them an engine with a prefix cache reuses the cached blocks of the prompt and caches the
 *     blocks it computes; without them the sequence neither reads nor fills the prefix cache
 */
public record SequenceSpec(
    int promptTokens, int outputTokens, boolean promptResident, long kvTransferNanos, @Nullable String leaseId,
    int @Nullable [] tokenIds) {

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
    if (tokenIds != null && tokenIds.length < promptTokens) {
      throw new IllegalArgumentException("token ids must cover the prompt: " + tokenIds.length + " < " + promptTokens);
    }
  }

  /** As the canonical constructor, without token ids (no prefix caching). */
  public SequenceSpec(
      int promptTokens, int outputTokens, boolean promptResident, long kvTransferNanos, @Nullable String leaseId) {
    this(promptTokens, outputTokens, promptResident, kvTransferNanos, leaseId, null);
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
    return new SequenceSpec(promptTokens, outputTokens, promptResident, kvTransferNanos, leaseId, tokenIds);
  }

  /** The same request with its token ids (prompt, then output), so a prefix cache can serve it. */
  public SequenceSpec withTokenIds(int[] ids) {
    return new SequenceSpec(promptTokens, outputTokens, promptResident, kvTransferNanos, leaseId, ids);
  }

  /** As {@link #pulled}, its transfer time scaled to the share of the prompt the engine lacks. */
  SequenceSpec withTransferNanos(long nanos) {
    return new SequenceSpec(promptTokens, outputTokens, promptResident, nanos, leaseId, tokenIds);
  }

  /** KV tokens the sequence holds at its largest. */
  long peakKvTokens() {
    return (long) promptTokens + outputTokens;
  }
}
