package narwhal.sim;

import io.netty.channel.ChannelHandlerContext;
import narwhal.sim.gpu.Sequence;
import narwhal.sim.gpu.SequenceListener;
import narwhal.sim.gpu.SequenceSpec;
import narwhal.sim.gpu.StepLoop;

/**
 * A response's place in its engine's step loop (gpu timing mode): it submits the response's
 * sequence, hands each token the loop produces to the response on the channel's event loop, tells
 * a producer when the KV it leased is no longer needed, and gives the sequence back exactly once.
 * Confined to the channel's event loop.
 */
final class GpuSeat implements SequenceListener {

  private final ProducerNotice producer;
  private final Runnable onToken;
  private final Sequence sequence;
  private boolean closed;

  private GpuSeat(StepLoop loop, ChannelHandlerContext ctx, SequenceSpec spec, ProducerNotice producer,
      Runnable onToken) {
    this.producer = producer;
    this.onToken = onToken;
    // Callbacks run on this channel's event loop, after this constructor returns.
    this.sequence = loop.submit(spec, ctx.executor(), this);
  }

  /**
   * Submits {@code request}'s sequence, {@code outputTokens} long; {@code onToken} runs on the
   * channel's event loop for each token produced until {@link #close}. A decode leg's {@code
   * producer} is told once its KV has arrived (or when the response ends before that). The caller
   * has checked {@link StepLoop#refusal}.
   */
  static GpuSeat join(StepLoop loop, ChannelHandlerContext ctx, SimOptions options, SimRequest request,
      int outputTokens, String internalRequestId, ProducerNotice producer, Runnable onToken) {
    int prompt = request.promptTokens();
    SequenceSpec spec = request.kvPull() || request.bootstrapDecode()
        ? SequenceSpec.pulled(prompt, outputTokens,
            TimingModel.millisToNanos(options.kvTransferMillisPerToken() * prompt))
        : SequenceSpec.prefill(prompt, outputTokens);
    if (options.prefixCaching().enabled()) {
      spec = spec.withTokenIds(tokenIds(options, request, outputTokens));
    }
    if (request.remoteDecode()) {
      // NixlConnector keeps a prefill's blocks until the decode reads them (or the lease ends),
      // under the id its descriptor names.
      spec = spec.leased(internalRequestId);
    } else if (request.bootstrapPrefill()) {
      // SGLang's prefill holds the KV until its decode has taken it: until its response ends.
      spec = spec.leased("bootstrap-" + internalRequestId);
    }
    return new GpuSeat(loop, ctx, spec, producer, onToken);
  }

  /** The prompt's ids, then those of the tokens this response will generate (the deterministic words). */
  private static int[] tokenIds(SimOptions options, SimRequest request, int outputTokens) {
    int[] prompt = request.tokenIds();
    int[] ids = java.util.Arrays.copyOf(prompt, prompt.length + outputTokens);
    TokenSequence words = new TokenSequence(options.seed(), request.promptKey());
    for (int i = 0; i < outputTokens; i++) {
      ids[prompt.length + i] = SimVocabulary.wordId(words.next());
    }
    return ids;
  }

  /** Prompt tokens the engine did not compute for this response (vLLM's {@code cached_tokens}). */
  int cachedTokens() {
    return sequence.cachedTokens();
  }

  @Override
  public void tokenProduced() {
    if (!closed) {
      onToken.run();
    }
  }

  @Override
  public void kvArrived() {
    producer.send();
  }

  /**
   * The response is over. {@code kvHandedOver}: a prefill's descriptor went out, so its KV stays
   * leased for the decode that will pull it; otherwise the sequence leaves the loop wherever it is
   * and its KV is freed. Idempotent.
   */
  void close(boolean kvHandedOver) {
    if (closed) {
      return;
    }
    closed = true;
    if (!kvHandedOver) {
      sequence.cancel();
    }
    producer.send(); // if the response ended before the KV arrived
  }
}
