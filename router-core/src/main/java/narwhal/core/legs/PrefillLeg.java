package narwhal.core.legs;

import narwhal.spi.Phase;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineSpec;
import narwhal.core.trace.LegTrace;
import narwhal.time.Scheduler;
import narwhal.spi.PrefillAnswer;
import narwhal.spi.PrefillResult;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.TransportFailure;
import narwhal.spi.UnreadableHandoffException;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import org.jspecify.annotations.Nullable;

/** One prefill leg: send, bound by the prefill timeout, read the descriptor. Confined to its loop. */
final class PrefillLeg implements OneShotExchange.Outcome {

  private final EngineTransport transport;
  private final EngineDialect dialect;
  private final EngineSpec producer;
  private final CompletionRequest request;
  private final LegTrace leg;
  private final LegLimits limits;
  private final Scheduler loop;
  private final CompletableFuture<PrefillResult> result = new CompletableFuture<>();

  private @Nullable OneShotExchange exchange;
  private long startedNanos;
  private @Nullable EngineHttpRequest httpRequest;

  /** For a concurrent handoff: the rendezvous planned for both legs; null when the response carries it. */
  private final @Nullable PrefillResult planned;

  PrefillLeg(EngineTransport transport, EngineDialect dialect, EngineSpec producer, CompletionRequest request,
      LegTrace leg, LegLimits limits, Scheduler loop) {
    this(transport, dialect, producer, request, leg, limits, loop, null, null);
  }

  /**
   * A prefill leg of a concurrent handoff: {@code httpRequest} already carries the {@code planned}
   * rendezvous; the response is drained and, on a 200, the leg completes with {@code planned}.
   */
  PrefillLeg(EngineTransport transport, EngineDialect dialect, EngineSpec producer, CompletionRequest request,
      LegTrace leg, LegLimits limits, Scheduler loop, @Nullable EngineHttpRequest httpRequest,
      @Nullable PrefillResult planned) {
    this.transport = transport;
    this.dialect = dialect;
    this.producer = producer;
    this.request = request;
    this.leg = leg;
    this.limits = limits;
    this.loop = loop;
    this.httpRequest = httpRequest;
    this.planned = planned;
    // Cancelling the future (client gone, request deadline) abandons the leg. The future
    // completes exactly once on every path, so this is also where the leg's span ends.
    result.whenComplete((r, e) -> {
      if (e instanceof CancellationException) {
        leg.cancelled(status());
        loop.runInLoop(this::abandon);
      } else if (e != null) {
        leg.failed(status(), e instanceof EngineFailure f ? f.reason() : "internal");
      } else {
        leg.succeeded(status());
      }
    });
  }

  CompletableFuture<PrefillResult> result() {
    return result;
  }

  void start() {
    if (result.isDone()) {
      return;
    }
    startedNanos = loop.nanoTime();
    if (httpRequest == null) {
      httpRequest = leg.onto(dialect.prefillRequest(request, leg.backendId()));
    }
    exchange = OneShotExchange.start(transport, producer.url(), httpRequest, limits.exchange(), limits.timeoutNanos(),
        loop, this);
  }

  @Override
  public void onAnswer(int status, String body) {
    if (status != 200) {
      result.completeExceptionally(
          EngineFailures.fromStatus(Phase.PREFILL, producer.iid(), status, dialect.errorMessage(body)));
      return;
    }
    // The answer is read once: the descriptor and the producer's count of the prompt together.
    PrefillAnswer answer;
    try {
      answer = dialect.readPrefillAnswer(body, producer.connector());
    } catch (UnreadableHandoffException e) {
      if (planned != null) {
        // A planned handoff needs nothing from the answer: only the count is lost.
        result.complete(planned);
      } else {
        result.completeExceptionally(EngineFailures.kvHandoff(producer.iid(), e.getMessage()));
      }
      return;
    }
    long promptTokens = answer.promptTokens();
    long cachedTokens = answer.cachedTokens();
    if (planned != null) {
      PrefillResult answered = promptTokens > 0 ? planned.withPromptTokens(promptTokens) : planned;
      result.complete(cachedTokens >= 0 ? answered.withCachedTokens(cachedTokens) : answered);
      return;
    }
    KvHandoffDescriptor descriptor = answer.handoff();
    if (descriptor == null) {
      result.completeExceptionally(EngineFailures.kvHandoff(producer.iid(),
          "the " + dialect.name() + " dialect read no descriptor from the prefill answer"));
      return;
    }
    narwhal.proto.v1.PrefillResult.Builder proto = narwhal.proto.v1.PrefillResult.newBuilder()
        .setHandoff(descriptor)
        .setProducerUrl(producer.url().toString())
        .setProducerIid(producer.iid())
        .setEndpoint(httpRequest.path())
        .setBackendRequestId(leg.backendId())
        .setRoute(request.getRoute())
        .setPromptTokens(promptTokens);
    if (cachedTokens >= 0) {
      proto.setCachedTokens(cachedTokens);
    }
    // The result outlives this leg by the whole decode: its renderer captures the dialect and the
    // descriptor, never the leg (a lambda reading the field would hold `this`, and with it the
    // request body, the exchange and its timer, for every stream in flight).
    EngineDialect renderer = dialect;
    result.complete(new PrefillResult(
        proto.build(), () -> renderer.transferParametersJson(descriptor), startedNanos, loop.nanoTime()));
  }

  @Override
  public void onFailure(TransportFailure failure) {
    result.completeExceptionally(EngineFailures.fromTransport(Phase.PREFILL, producer.iid(), failure, 0));
  }

  @Override
  public void onTimeout() {
    result.completeExceptionally(EngineFailures.prefillTimeout(producer.iid(), limits.timeoutNanos()));
  }

  /** The engine's answer status so far, for the leg's span; 0 before it answered. */
  private int status() {
    return exchange == null ? 0 : exchange.status();
  }

  private void abandon() {
    if (exchange != null) {
      exchange.abandon();
    }
  }
}
