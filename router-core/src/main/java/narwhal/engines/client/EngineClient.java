package narwhal.engines.client;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import narwhal.config.EngineSpec;
import narwhal.core.time.Scheduler;
import narwhal.engines.connector.PrefillResult;
import narwhal.engines.spi.EngineDialects;
import narwhal.engines.spi.EngineTransport;
import narwhal.proto.v1.CompletionRequest;
import org.jspecify.annotations.Nullable;

/**
 * Runs single engine legs: a prefill that yields a {@link PrefillResult}, and a decode that takes
 * that result and streams. It owns what is true of one leg whatever request it serves (fresh
 * backend request ids, the leg's timers, descriptor validation, stream termination rules and the
 * mapping of faults to {@link EngineFailure}), and nothing about the request around it: placement,
 * retries, reservations and the client belong to the caller.
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
    this(transport, dialects, () -> UUID.randomUUID().toString());
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
    PrefillLeg leg = new PrefillLeg(
        transport, dialects.get(producer.dialect()), producer, request, backendIds.get(), limits, loop);
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
    DecodeLeg leg = new DecodeLeg(
        transport, dialects.get(consumer.dialect()), consumer, request, handoff, backendIds.get(), limits,
        loop, listener);
    loop.runInLoop(leg::start);
    return leg;
  }

  /** Engine connections currently open, for tests and metrics. */
  public int openConnections() {
    return transport.openConnections();
  }
}
