package narwhal.core.request;

import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import narwhal.api.FailurePolicy;
import narwhal.core.fleet.EngineState;
import narwhal.core.legs.DecodeListener;
import narwhal.core.legs.EngineClient;
import narwhal.core.legs.EngineFailure;
import narwhal.core.legs.EngineFailures;
import narwhal.core.trace.LegTrace;
import narwhal.proto.v1.CompletionRequest;
import narwhal.spi.Phase;
import narwhal.spi.PrefillResult;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a concurrent handoff (e.g. SGLang): the pair is placed up front and both legs
 * carry one rendezvous and run at once. The decode leg streams to the client through the request
 * as usual; the prefill leg's answer only confirms the producer's part (and marks {@code ttft_s}).
 * Either leg failing ends the other, so no leg outlives its sibling, and a decode that failed
 * because its producer never delivered is blamed on the producer.
 *
 * <p>Its own class because none of this happens in a sequential handoff, where the prefill leg
 * has answered before the decode leg starts. Confined to the request's scheduler.
 */
final class ConcurrentHandoffAttempt {

  /** What the request does with the producer's answer. */
  interface Producer {
    /**
     * The prefill leg answered 200 at {@code now}: the producer's part is done.
     *
     * @param promptTokens the prompt's size its answer reported, 0 when none
     */
    void answered(long now, long promptTokens);

    /** The prefill leg failed; the decode leg has already been ended with it. */
    void failed(EngineFailure failure);
  }

  private final EngineState producer;
  private final EngineState consumer;
  private final AttemptLegs legs;
  private final Scheduler loop;
  private final RequestTimeline timeline;

  ConcurrentHandoffAttempt(EngineState producer, EngineState consumer, AttemptLegs legs, Scheduler loop,
      RequestTimeline timeline) {
    this.producer = producer;
    this.consumer = consumer;
    this.legs = legs;
    this.loop = loop;
    this.timeline = timeline;
  }

  /**
   * Reserves both engines and dispatches both legs. A leg can fail inside the dispatch (the
   * rendezvous is refused before anything is sent): {@code decoding} then reads false, the
   * failure has already reached {@code decodeListener}, and no leg is kept.
   *
   * @param current whether this attempt is still the request's live one, checked when the
   *     prefill leg answers (a cancelled attempt's callback is stale)
   */
  void dispatch(EngineClient engines, RequestSettings settings, CompletionRequest request,
      CompletionRequest decodeRequest, DecodeListener decodeListener, LegTrace prefillTrace, LegTrace decodeTrace,
      BooleanSupplier decoding,
      BooleanSupplier current, Producer onProducer, long promptTokens, long kvTokens) {
    legs.prefillReservation = producer.reservePrefill(promptTokens);
    legs.decodeReservation = consumer.reserveDecode(kvTokens);
    timeline.legsDispatchedTogether(loop.nanoTime());
    EngineClient.ConcurrentLegs pair = engines.concurrent(producer.spec(), consumer.spec(), request,
        decodeRequest, settings.prefillLimits(), settings.decodeLimits(), loop, decodeListener, prefillTrace,
        decodeTrace);
    if (!decoding.getAsBoolean()) {
      return;
    }
    legs.decodeCall = pair.decode();
    legs.prefillCall = pair.prefill();
    pair.prefill().whenComplete((result, error) -> {
      if (current.getAsBoolean() && legs.prefillCall == pair.prefill()) {
        onPrefillDone(result, error, onProducer);
      }
    });
  }

  private void onPrefillDone(@Nullable PrefillResult result, @Nullable Throwable error, Producer onProducer) {
    legs.prefillCall = null;
    legs.releasePrefill();
    long now = loop.nanoTime();
    timeline.concurrentPrefillDone(now);
    if (error == null) {
      onProducer.answered(now, result == null ? 0 : result.promptTokens());
      return;
    }
    EngineFailure failure = LegErrors.asEngineFailure(error, Phase.PREFILL);
    // The consumer cannot finish without its producer: end the decode leg with it.
    legs.cancelDecode();
    legs.releaseDecode();
    timeline.legEnded(now);
    onProducer.failed(failure);
  }

  /**
   * Ends the prefill leg when its decode sibling has failed, and says whose failure it was. A
   * decode the consumer had accepted (a 200 stream head) that then timed out without a token while
   * the producer had still not answered was waiting on the producer: that failure is the
   * producer's, a prefill timeout. A consumer that answered an error status itself (408 and 504
   * included), or never sent its response head within the first-token budget, failed on its own:
   * the spec counts response-header delays against the decode's first-token budget, and the
   * producer is then the one left waiting (SGLang's prefill answers only once its decode has
   * joined the rendezvous).
   */
  EngineFailure decodeFailed(EngineFailure decodeFailure, boolean consumerAccepted, int tokens) {
    legs.releasePrefill();
    CompletableFuture<PrefillResult> sibling = legs.prefillCall;
    if (sibling == null) {
      return decodeFailure;
    }
    legs.cancelPrefill();
    if (FailurePolicy.waitedOnProducer(decodeFailure.origin(), decodeFailure.status(), consumerAccepted, tokens)) {
      return EngineFailures.producerKeptDecodeWaiting(producer.iid(), decodeFailure);
    }
    return decodeFailure;
  }
}
