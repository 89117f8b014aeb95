package narwhal.core.legs;

import narwhal.spi.Phase;
import narwhal.api.FailureOrigin;

import java.util.concurrent.TimeUnit;
import narwhal.config.EngineSpec;
import narwhal.core.trace.LegTrace;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import narwhal.core.legs.DescriptorValidator;
import narwhal.spi.PrefillResult;
import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.MalformedEventException;
import narwhal.spi.TransportFailure;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/**
 * One decode leg as a small state machine on its loop.
 *
 * <p>Timers, per the spec: the first-token timer starts before the connection is opened (so
 * connect and response-header delays spend the same budget) and stops at the first generated
 * token; after that the silence bound limits the gap between transport chunks, and any chunk
 * (a metadata event, or bytes that completed no event, such as a keep-alive comment) resets it.
 * A valid stream is generated output then {@code [DONE]}.
 *
 * <p>The silence bound is a lazily checked deadline: each chunk only records the time, and the one
 * armed timer, when it fires, re-arms itself for whatever is left since the last chunk. Cancelling
 * and rescheduling a timer per token would cost a timer-queue operation on the hot path.
 */
final class DecodeLeg implements DecodeCall, ExchangeHandler {

  /** After [DONE] the engine should end the response at once; don't hold its connection longer. */
  private static final long DRAIN_AFTER_DONE_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final EngineTransport transport;
  private final EngineDialect dialect;
  private final EngineSpec consumer;
  /** Let go once the request is sent: a stream lives for minutes and must not hold its body. */
  private @Nullable DraftedDecode request;
  private final @Nullable PrefillResult handoff;
  private final LegTrace leg;
  private final LegLimits limits;
  private final Scheduler loop;
  private final DecodeListener listener;

  private @Nullable Exchange exchange;
  private Timer timer = Timer.NONE;
  private DecodeEventDecoder decoder;
  private int status;
  private String errorBody = "";
  private int tokens;
  /** When the engine last sent anything after the first token (scheduler clock). */
  private long lastChunkNanos;
  /** Metadata other than a chat stream's opening role chunk arrived (for the first-token class). */
  private boolean sawMetadata;
  private boolean sawRoleOrMetadata;
  private boolean paused;
  /** The listener has had its terminal call (or the caller cancelled): stay silent from now on. */
  private boolean finished;

  DecodeLeg(EngineTransport transport, EngineDialect dialect, EngineSpec consumer, DraftedDecode request,
      @Nullable PrefillResult handoff, LegTrace leg, LegLimits limits, Scheduler loop,
      DecodeListener listener) {
    this.transport = transport;
    this.dialect = dialect;
    this.consumer = consumer;
    this.request = request;
    this.handoff = handoff;
    this.leg = leg;
    this.limits = limits;
    this.loop = loop;
    this.listener = listener;
  }

  @Override
  public String backendRequestId() {
    return leg.backendId();
  }

  @Override
  public boolean accepted() {
    return status == 200;
  }

  /** True once the leg has ended (completed, failed or cancelled). */
  boolean isFinished() {
    return finished;
  }

  void start() {
    if (finished) {
      return;
    }
    // Same-engine decode uses no transfer parameters at all: the engine's prefix cache has the KV.
    boolean crossed = handoff != null && !handoff.producerIid().equals(consumer.iid());
    KvHandoffDescriptor descriptor = crossed ? handoff.descriptor() : null;
    // The descriptor is validated before anything is rendered from it: an unusable one is the
    // producer's kv_handoff failure, and no decode request is built or sent.
    if (crossed && fails(DescriptorValidator.descriptorProblem(handoff, dialect, consumer.connector()))) {
      return;
    }
    DraftedDecode drafted = request;
    request = null;
    EngineHttpRequest httpRequest = leg.onto(drafted.complete(dialect, descriptor, leg.backendId()));
    if (crossed && fails(DescriptorValidator.endpointProblem(handoff, httpRequest.path()))) {
      return;
    }
    decoder = dialect.decodeEventDecoder(drafted.request().getRoute());
    // Armed before the connection opens: connect and header delays spend the first-token budget.
    timer = loop.schedule(this::onFirstTokenTimeout, limits.timeoutNanos(), TimeUnit.NANOSECONDS);
    exchange = transport.open(consumer.url(), httpRequest, limits.exchange(), loop, this);
  }

  /** Ends the leg as the producer's kv_handoff failure when {@code problem} is one. */
  private boolean fails(@Nullable String problem) {
    if (problem == null) {
      return false;
    }
    request = null;
    finish(EngineFailures.kvHandoff(handoff.producerIid(), problem));
    return true;
  }

  @Override
  public void onHead(int status, String contentType) {
    this.status = status;
    if (status == 200 && !contentType.startsWith("text/event-stream")) {
      fail(EngineFailures.brokenStream(consumer.iid(), FailureOrigin.HEADERS,
          "decode engine " + consumer.iid() + " answered a streaming request with '" + contentType
              + "' instead of an event stream", false, null));
    }
  }

  @Override
  public void onEvent(String data) {
    if (finished || status != 200) {
      return;
    }
    StreamEvent event;
    try {
      event = decoder.decode(data);
    } catch (MalformedEventException e) {
      fail(EngineFailures.brokenStream(consumer.iid(), FailureOrigin.STREAM_EVENT,
          "decode engine " + consumer.iid() + " sent an unreadable stream event after " + TokenCounts.describe(tokens) + ": "
              + e.getMessage(), false, e));
      return;
    }
    if (tokens > 0) {
      lastChunkNanos = loop.nanoTime();
    }
    switch (event.getKindCase()) {
      case DONE:
        onDone();
        break;
      case ERROR:
        fail(EngineFailures.fromStreamError(
            consumer.iid(), event.getError().getStatus(), event.getError().getMessage(), tokens));
        break;
      case TOKEN:
        if (++tokens == 1) {
          startSilenceBound();
        }
        listener.onEvent(event);
        break;
      case METADATA:
        // A chat stream opens with its role announcement whatever the engine does next: that
        // alone is not output. Anything after it shows an engine alive but not generating.
        if (sawRoleOrMetadata || event.getMetadata().getRole().isEmpty()) {
          sawMetadata = true;
        }
        sawRoleOrMetadata = true;
        listener.onEvent(event);
        break;
      default:
        break;
    }
  }

  /**
   * Bytes that completed no event. After the first token they reset the silence bound; before it
   * they do not stop the first-token timer, which only a generated token ends.
   */
  @Override
  public void onChunkWithoutEvent() {
    if (!finished && status == 200 && tokens > 0) {
      lastChunkNanos = loop.nanoTime();
    }
  }

  private void onDone() {
    if (tokens == 0) {
      fail(EngineFailures.brokenStream(consumer.iid(), FailureOrigin.STREAM_EVENT,
          "stream ended with [DONE] before any token arrived from decode engine " + consumer.iid(), false, null));
      return;
    }
    finished = true;
    timer.cancel();
    leg.succeeded(status);
    // The response should end right after [DONE]; if it does not, free the connection anyway.
    timer = loop.schedule(this::closeExchange, DRAIN_AFTER_DONE_NANOS, TimeUnit.NANOSECONDS);
    listener.onComplete();
  }

  @Override
  public void onBody(String body) {
    errorBody = body;
  }

  @Override
  public void onEnd() {
    if (finished) {
      timer.cancel();
      return;
    }
    if (status != 200) {
      fail(EngineFailures.fromStatus(Phase.DECODE, consumer.iid(), status, dialect.errorMessage(errorBody)));
      return;
    }
    fail(EngineFailures.brokenStream(consumer.iid(), FailureOrigin.RESPONSE,
        "decode engine " + consumer.iid() + " closed the stream before [DONE] after " + TokenCounts.describe(tokens),
        tokens == 0, null));
  }

  @Override
  public void onFailure(TransportFailure failure) {
    if (!finished) {
      finish(EngineFailures.fromTransport(Phase.DECODE, consumer.iid(), failure, tokens));
    } else {
      timer.cancel();
    }
  }

  private void onFirstTokenTimeout() {
    if (finished) {
      return;
    }
    // Whether other output came first decides the class (FailurePolicy.firstTokenTimeout).
    fail(EngineFailures.firstTokenTimeout(consumer.iid(), limits.timeoutNanos(), sawMetadata));
  }

  /** The armed silence timer fired: fail only if the bound really elapsed since the last chunk. */
  private void onSilenceCheck() {
    if (finished || paused) {
      return;
    }
    long left = limits.readTimeoutNanos() - (loop.nanoTime() - lastChunkNanos);
    if (left > 0) {
      timer = loop.schedule(this::onSilenceCheck, left, TimeUnit.NANOSECONDS);
      return;
    }
    fail(EngineFailures.silence(consumer.iid(), limits.readTimeoutNanos(), tokens));
  }

  /**
   * Bounds silence from now on, counted from now: at the first token (which ends the first-token
   * timer) and on resume (silence while we did not read was ours, not the engine's). With
   * {@code decode_read_timeout_s: 0} nothing is armed: the request's own deadline (held by the
   * caller) is then the only bound on the stream.
   */
  private void startSilenceBound() {
    timer.cancel();
    lastChunkNanos = loop.nanoTime();
    if (limits.readTimeoutNanos() > 0 && !paused) {
      timer = loop.schedule(this::onSilenceCheck, limits.readTimeoutNanos(), TimeUnit.NANOSECONDS);
    } else {
      timer = Timer.NONE;
    }
  }

  /** Fails the leg after the exchange began: the engine connection is closed. */
  private void fail(EngineFailure failure) {
    if (finished) {
      return;
    }
    closeExchange();
    finish(failure);
  }

  private void finish(EngineFailure failure) {
    finished = true;
    timer.cancel();
    leg.failed(status, failure.reason());
    listener.onFailure(failure);
  }

  private void closeExchange() {
    if (exchange != null) {
      exchange.cancel();
    }
  }

  @Override
  public void cancel() {
    finished = true;
    timer.cancel();
    // A no-op when the leg had already ended: its span ends once.
    leg.cancelled(status);
    // Cancelling an exchange that already ended is a no-op in the transport.
    closeExchange();
  }

  @Override
  public void pause() {
    if (finished || paused) {
      return;
    }
    paused = true;
    if (exchange != null) {
      exchange.pause();
    }
    // Silence we caused by not reading is not the engine's silence.
    if (tokens > 0) {
      timer.cancel();
      timer = Timer.NONE;
    }
  }

  @Override
  public void resume() {
    if (finished || !paused) {
      return;
    }
    paused = false;
    if (exchange != null) {
      exchange.resume();
    }
    if (tokens > 0) {
      // The engine gets the full bound again from the moment we read once more.
      startSilenceBound();
    }
  }
}
