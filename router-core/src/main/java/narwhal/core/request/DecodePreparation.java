package narwhal.core.request;

import java.util.Set;
import narwhal.core.fleet.EngineState;
import narwhal.core.legs.DraftedDecode;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.StreamOptions;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * What the router does for a request's decode leg while its producer prefills, so that between the
 * prefill answer and the decode request only the handoff is left to add: it drafts the decode
 * request, and readies a connection to the engine decode placement would pick now. Confined to
 * the request's scheduler.
 */
final class DecodePreparation {

  private final RouterRuntime rt;
  private final CompletionRequest request;
  private final PricedPlacement placement;
  private final Scheduler loop;
  /** The decode leg's request, drafted while a prefill leg runs (sequential handoffs); null once sent. */
  private @Nullable DraftedDecode drafted;

  DecodePreparation(RouterRuntime rt, CompletionRequest request, PricedPlacement placement, Scheduler loop) {
    this.rt = rt;
    this.request = request;
    this.placement = placement;
    this.loop = loop;
  }

  /**
   * The decode leg always streams, so first-token and silence timeouts can be enforced; for a
   * non-streaming client the router assembles the answer and asks for usage to report it. Built
   * when asked, so that no copy of the request outlives its use.
   */
  CompletionRequest decodeRequest() {
    if (request.getStream()) {
      return request;
    }
    return request.toBuilder()
        .setStream(true)
        .setStreamOptions(StreamOptions.newBuilder().setIncludeUsage(true))
        .build();
  }

  /** Both, once {@code producer}'s prefill request is out. */
  void whilePrefilling(EngineState producer, Set<String> avoided, long kvTokens) {
    draft(producer);
    prepareLikelyConsumer(producer, avoided, kvTokens);
  }

  /**
   * The decode request is drafted as soon as the prefill leg is under way (right after its request
   * is written, on a pooled connection), in the producer's dialect: the engine prefills for
   * milliseconds, during which the router is otherwise idle, and what the draft holds (the whole
   * decode body but the handoff) is then off the path from the prefill answer to the decode
   * request. A retry after a failed prefill reuses the draft.
   */
  private void draft(EngineState producer) {
    if (drafted == null) { // a retry after a failed prefill keeps the first attempt's draft
      drafted = rt.engines().draftDecode(producer.spec(), decodeRequest());
    }
  }

  /**
   * Readies a connection to the engine decode placement would pick now, also while the prefill
   * runs: where the pool keeps none idle for it (an engine that closes each stream, a pool gone
   * cold, TLS), the connect and its handshake are then off the path from the prefill answer to
   * the decode request. A guess only: placement is made again at the answer, with the loads of
   * then, and a connection readied for an engine it does not pick waits in the pool for a later
   * request or its idle timeout.
   */
  private void prepareLikelyConsumer(EngineState producer, Set<String> avoided, long kvTokens) {
    EngineState likely = placement.likelyDecode(producer.iid(), avoided, loop.nanoTime(), kvTokens);
    if (likely != null) {
      rt.engines().prepareDecode(likely.spec(), rt.settings().decodeLimits(), loop);
    }
  }

  /**
   * The draft for {@code consumer}'s decode leg (drafted now when none was), let go of: a stream
   * lives for minutes and must not hold a copy of its request body; the rare retry after a sent
   * decode leg drafts again.
   */
  DraftedDecode take(EngineState consumer) {
    DraftedDecode d = drafted != null ? drafted : rt.engines().draftDecode(consumer.spec(), decodeRequest());
    drafted = null;
    return d;
  }
}
