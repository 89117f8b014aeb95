package narwhal.core.legs;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import narwhal.api.RequestIds;
import narwhal.config.EngineSpec;
import narwhal.core.trace.LegTrace;
import narwhal.time.Scheduler;
import narwhal.spi.PrefillResult;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.HandoffStyle;
import narwhal.spi.EngineTransport;
import narwhal.spi.ExchangeOptions;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * Runs single engine legs: a prefill that yields a {@link PrefillResult}, and a decode that takes
 * that result and streams. It owns what is true of one leg whatever request it serves (the
 * leg's timers, descriptor validation, stream termination rules and the
 * mapping of faults to {@link EngineFailure}), and nothing about the request around it: placement,
 * retries, reservations and the client belong to the caller. A request names each leg ({@link
 * LegTrace}: backend id, trace context, span); a leg called without one (a probe) gets a fresh
 * backend id from this client and no trace.
 *
 * <pre>{@code
 * client.prefill(producer, request, prefillLimits, loop)
 *     .thenAccept(handoff -> client.decode(consumer, request, handoff, decodeLimits, loop, listener));
 * }</pre>
 *
 * <p>Thread-safe; each leg runs on the scheduler passed to it.
 */
public final class EngineClient {

  private final EngineTransport transport;
  private final EngineDialects dialects;
  private final Supplier<String> backendIds;

  public EngineClient(EngineTransport transport, EngineDialects dialects) {
    this(transport, dialects, RequestIds::uuid);
  }

  public EngineClient(EngineTransport transport, EngineDialects dialects, Supplier<String> backendIds) {
    this.transport = transport;
    this.dialects = dialects;
    this.backendIds = backendIds;
  }

  /**
   * Sends the prefill leg to {@code producer}. The future completes on {@code loop} with the
   * handoff, or exceptionally with an {@link EngineFailure}. Cancelling the future cancels the leg.
   */
  public CompletableFuture<PrefillResult> prefill(
      EngineSpec producer, CompletionRequest request, LegLimits limits, Scheduler loop) {
    return prefill(producer, request, limits, loop, untraced());
  }

  /** As above, the leg named and traced by {@code trace}, which the leg ends when it does. */
  public CompletableFuture<PrefillResult> prefill(
      EngineSpec producer, CompletionRequest request, LegLimits limits, Scheduler loop, LegTrace trace) {
    PrefillLeg leg = new PrefillLeg(
        transport, dialects.get(producer.dialect()), producer, request, trace, limits, loop);
    loop.runInLoop(leg::start);
    return leg.result();
  }

  /**
   * Sends the decode leg to {@code consumer}. With a {@code handoff} from another engine the
   * descriptor is validated first (a bad one fails the leg as {@code kv_handoff} and nothing is
   * sent); with no handoff, or one produced by {@code consumer} itself, the leg carries no
   * transfer parameters and relies on the engine's prefix cache.
   */
  public DecodeCall decode(
      EngineSpec consumer,
      CompletionRequest request,
      @Nullable PrefillResult handoff,
      LegLimits limits,
      Scheduler loop,
      DecodeListener listener) {
    return decode(consumer, request, handoff, limits, loop, listener, untraced());
  }

  /** As above, the leg named and traced by {@code trace}, which the leg ends when it does. */
  public DecodeCall decode(
      EngineSpec consumer,
      CompletionRequest request,
      @Nullable PrefillResult handoff,
      LegLimits limits,
      Scheduler loop,
      DecodeListener listener,
      LegTrace trace) {
    return decode(consumer, draftDecode(consumer, request), handoff, limits, loop, listener, trace);
  }

  /** As above, the request drafted ahead ({@link #draftDecode}). */
  public DecodeCall decode(
      EngineSpec consumer,
      DraftedDecode request,
      @Nullable PrefillResult handoff,
      LegLimits limits,
      Scheduler loop,
      DecodeListener listener,
      LegTrace trace) {
    DecodeLeg leg = new DecodeLeg(
        transport, dialects.get(consumer.dialect()), consumer, request, handoff, trace, limits,
        loop, listener);
    loop.runInLoop(leg::start);
    return leg;
  }

  /**
   * Drafts {@code request}'s decode leg in {@code engine}'s dialect ({@link
   * EngineDialect#draftDecodeRequest}): a request drafts while its prefill runs, so that only the
   * handoff is left to add once the producer answers.
   */
  public DraftedDecode draftDecode(EngineSpec engine, CompletionRequest request) {
    return DraftedDecode.of(dialects.get(engine.dialect()), request);
  }

  /**
   * Readies a connection to {@code consumer} for a decode leg expected on {@code loop} once a
   * prefill answers ({@link EngineTransport#prepare}): with an engine that closes each stream, a
   * pool gone cold, or TLS, the connect and handshake then happen while the engine prefills
   * instead of after its answer.
   */
  public void prepareDecode(EngineSpec consumer, LegLimits limits, Scheduler loop) {
    transport.prepare(consumer.url(), limits.exchange(), loop);
  }

  /**
   * Asks {@code engine} for the exact token count of {@code request}'s prompt through its
   * dialect's tokenize route, bounded by {@code timeoutNanos}. Returns null, sending nothing, when
   * the dialect cannot count this prompt (no route, or a prompt shape the route does not take).
   * Otherwise the future completes on {@code loop} with the count, or exceptionally with a {@link
   * PromptCountFailure}; cancelling it abandons the exchange. A count is not a leg: its failures
   * are the caller's to fall back from and never reach the breaker.
   */
  public @Nullable CompletableFuture<Long> countPrompt(EngineSpec engine, CompletionRequest request,
      long timeoutNanos, ExchangeOptions options, Scheduler loop, String backendRequestId) {
    CompletableFuture<PromptTokens> tokens =
        tokenize(engine, request, timeoutNanos, options, loop, backendRequestId, false);
    if (tokens == null) {
      return null;
    }
    CompletableFuture<Long> count = new CompletableFuture<>();
    tokens.whenComplete((t, e) -> {
      if (e != null) {
        count.completeExceptionally(e);
      } else {
        count.complete(t.count());
      }
    });
    // Cancelling the count abandons the exchange.
    count.whenComplete((n, e) -> {
      if (count.isCancelled()) {
        tokens.cancel(false);
      }
    });
    return count;
  }

  /**
   * As {@link #countPrompt}, also reading the prompt's token ids from the answer when {@code
   * wantIds} (cache-aware placement hashes them); the answer's {@link PromptTokens#ids()} is null
   * when the dialect reads none.
   */
  public @Nullable CompletableFuture<PromptTokens> tokenize(EngineSpec engine, CompletionRequest request,
      long timeoutNanos, ExchangeOptions options, Scheduler loop, String backendRequestId, boolean wantIds) {
    EngineDialect dialect = dialects.get(engine.dialect());
    EngineHttpRequest http = dialect.tokenizeRequest(request, backendRequestId);
    if (http == null) {
      return null;
    }
    PromptCountLeg leg = new PromptCountLeg(transport, dialect, engine, http, timeoutNanos, options, loop, wantIds);
    loop.runInLoop(leg::start);
    return leg.result();
  }

  /** How {@code producer}'s dialect moves the KV cache, which decides how a request's legs run. */
  public HandoffStyle handoffStyle(EngineSpec producer) {
    return dialects.get(producer.dialect()).handoffStyle();
  }

  /**
   * Runs both legs of a {@link HandoffStyle#CONCURRENT} handoff at once: plans a rendezvous with a
   * fresh random room, sends the decode leg carrying it (validated first: a rendezvous the dialect
   * rejects fails the decode leg as {@code kv_handoff} and then nothing at all is sent) and the
   * prefill leg carrying the same one. The prefill future completes with the planned handoff when
   * the producer answers 200 (its body is drained); the caller cancels the sibling when either
   * leg fails, so neither outlives the other.
   */
  public ConcurrentLegs concurrent(
      EngineSpec producer,
      EngineSpec consumer,
      CompletionRequest request,
      CompletionRequest decodeRequest,
      LegLimits prefillLimits,
      LegLimits decodeLimits,
      Scheduler loop,
      DecodeListener listener) {
    return concurrent(producer, consumer, request, decodeRequest, prefillLimits, decodeLimits, loop, listener,
        untraced(), untraced());
  }

  /** As above, each leg named and traced by its own {@link LegTrace}. */
  public ConcurrentLegs concurrent(
      EngineSpec producer,
      EngineSpec consumer,
      CompletionRequest request,
      CompletionRequest decodeRequest,
      LegLimits prefillLimits,
      LegLimits decodeLimits,
      Scheduler loop,
      DecodeListener listener,
      LegTrace prefillTrace,
      LegTrace decodeTrace) {
    EngineDialect dialect = dialects.get(producer.dialect());
    // Random across the whole range, so rooms from several routers sharing engines do not collide.
    long room = ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
    KvHandoffDescriptor rendezvous = dialect.planHandoff(producer, room);
    String prefillId = prefillTrace.backendId();
    EngineHttpRequest prefillHttp = prefillTrace.onto(dialect.prefillRequest(request, rendezvous, prefillId));
    PrefillResult planned = new PrefillResult(
        narwhal.proto.v1.PrefillResult.newBuilder()
            .setHandoff(rendezvous)
            .setProducerUrl(producer.url().toString())
            .setProducerIid(producer.iid())
            .setEndpoint(prefillHttp.path())
            .setBackendRequestId(prefillId)
            .setRoute(request.getRoute())
            .build(),
        () -> dialect.transferParametersJson(rendezvous), loop.nanoTime(), loop.nanoTime());
    PrefillLeg prefill = new PrefillLeg(
        transport, dialect, producer, request, prefillTrace, prefillLimits, loop, prefillHttp, planned);
    DecodeLeg decode = new DecodeLeg(
        transport, dialects.get(consumer.dialect()), consumer, draftDecode(consumer, decodeRequest), planned,
        decodeTrace, decodeLimits, loop, listener);
    loop.runInLoop(() -> {
      decode.start();
      if (decode.isFinished()) {
        // The rendezvous was refused before anything was sent: the prefill leg is never sent.
        prefill.result().cancel(false);
      } else {
        prefill.start();
      }
    });
    return new ConcurrentLegs(prefill.result(), decode);
  }

  private LegTrace untraced() {
    return LegTrace.untraced(backendIds.get());
  }

  /** The two legs of a concurrent handoff. */
  public record ConcurrentLegs(CompletableFuture<PrefillResult> prefill, DecodeCall decode) {}

  /** Engine connections currently open, for tests and metrics. */
  public int openConnections() {
    return transport.openConnections();
  }
}
