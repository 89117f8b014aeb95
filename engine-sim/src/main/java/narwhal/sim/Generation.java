package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import narwhal.sim.gpu.StepLoop;
import org.jspecify.annotations.Nullable;

/**
 * One response being generated: a state machine driven by timers on the connection's event loop
 * (no thread, no sleep), applying the request's faults at token boundaries.
 *
 * <p>Each step first checks the faults due "after {@code k} tokens" (k = tokens so far), then
 * emits the next token, so {@code X-after=0} acts before the first token and {@code
 * X-after=max_tokens} acts between the last token and {@code [DONE]}. A streaming chat response
 * sends its role chunk together with the first token, at time-to-first-token, as vLLM does. When
 * the channel stops being writable the machine parks until {@link #writabilityChanged()}.
 *
 * <p>What makes the next step due depends on the engine's timing mode. Simple: a timer per token
 * ({@link TimingModel}). Gpu: the engine's step loop producing the token ({@link GpuSeat}); the
 * engine keeps computing whatever the response does, so tokens produced while the response is
 * held back (a silence fault, a client not reading) are counted and go out back to back once it
 * may write again: a parked stream keeps its batch slot and KV and never stalls the other
 * sequences. {@code silence-first=MS} makes the engine see the request MS late. Exactly one thing
 * drives the next step at a time: a timer, the step loop's next token, a queued step (a token
 * already produced), writability, or the SGLang rendezvous.
 *
 * <p>Why one class of about 480 lines: it is one response's state machine, and every driver of
 * the next step (a timer, the step loop, writability, the rendezvous, a fault) must pass the same
 * one-driver-at-a-time guard; split across classes, that guard could not be read in one place.
 * The faults' parsing, the timing models and the bodies live elsewhere.
 *
 * <p>Confined to the channel's event loop.
 */
final class Generation {

  private final ChannelHandlerContext ctx;
  private final SimulatedEngineState engine;
  private final SimRequest request;
  private final RequestFaults faults;
  private final boolean keepAlive;
  /**
   * A streamed response's framing, fixed when it starts. Close-delimited: the body ends when the
   * connection does, so the connection cannot outlive the response.
   */
  private final StreamFraming framing;
  private final ResponseCompletion completion;
  private final ResponseShapes shapes;
  private final TokenSequence tokens;
  private final StringBuilder text = new StringBuilder();
  private final int kvBlocks;
  private final String internalRequestId;
  private final String responseId;

  private int emitted;
  private @Nullable String finishReason;
  private boolean roleSent;
  private int silencedAt = -1;
  private boolean ended;
  private boolean awaitingWritability;
  private @Nullable ScheduledFuture<?> stepTimer;
  /** Metadata chunks during a silence with a metadata fault. */
  private @Nullable PeriodicWrite metadata;
  /** SSE keep-alive comments while a silence fault holds the tokens back. */
  private @Nullable PeriodicWrite comments;
  /** SGLang-style requests only: the bootstrap room this leg meets the other leg in. */
  private final @Nullable RendezvousWait rendezvous;
  /** Gpu timing mode: the engine's step loop paces the tokens. */
  private final @Nullable StepLoop gpu;
  /** Gpu timing mode: this response's sequence in the step loop, once it joined. */
  private @Nullable GpuSeat seat;
  /** Gpu timing mode: tokens the step loop has produced for this response so far. */
  private int produced;
  /** Gpu timing mode: the next step waits for the step loop's next token. */
  private boolean awaitingToken;
  /** A prefill's descriptor went out: its KV stays leased on this engine for the decode to pull. */
  private boolean kvHandedOver;
  /** A decode leg's notice to a gpu-mode producer that its leased KV may go. */
  private final ProducerNotice producerNotice;

  Generation(ChannelHandlerContext ctx, SimulatedEngineState engine, SimRequest request, RequestFaults faults,
      boolean keepAlive, ResponseCompletion completion) {
    this.ctx = ctx;
    this.engine = engine;
    this.request = request;
    this.faults = faults;
    this.keepAlive = keepAlive;
    this.framing = engine.streamFraming();
    this.completion = completion;
    String id = request.endpoint().idPrefix() + request.idBase();
    this.responseId = id;
    this.shapes = new ResponseShapes(request.endpoint(), id, System.currentTimeMillis() / 1000, engine.options.model());
    this.tokens = new TokenSequence(engine.options.seed(), request.promptKey());
    this.kvBlocks = KvTransfer.blocksFor(request.promptTokens());
    // vLLM's engine-internal id: the OpenAI id (+ "-<prompt index>" for completions), then
    // "-" and 8 random hex digits (input_processor.assign_request_id).
    String suffix = String.format("%08x", ThreadLocalRandom.current().nextInt());
    this.internalRequestId = request.endpoint() == GenerationEndpoint.COMPLETIONS ? id + "-0-" + suffix : id + "-" + suffix;
    this.rendezvous = request.bootstrapPrefill() || request.bootstrapDecode()
        ? new RendezvousWait(ctx, engine, request.bootstrap())
        : null;
    this.gpu = engine.gpu;
    this.producerNotice = new ProducerNotice(ctx.channel().eventLoop(), request.producer());
  }

  void start() {
    engine.stats.responseStarted(request.stream(), request.promptTokens(), kvBlocks);
    if (request.stream()) {
      HttpResponse head = framing == StreamFraming.CLOSE
          ? HttpResponses.closeDelimitedHead(HttpResponses.EVENT_STREAM)
          : HttpResponses.chunkedHead(HttpResponses.EVENT_STREAM);
      HttpUtil.setKeepAlive(head, keepConnection());
      ctx.writeAndFlush(head);
    }
    if (request.bootstrapPrefill()) {
      engine.rooms.prefillStarted(request.bootstrap().room());
    }
    if (request.bootstrapDecode()) {
      // SGLang: the decode pulls the KV from the prefill engine's room before it can generate.
      rendezvous().awaitKv(this::scheduleFirstStep, message -> failWith(500, message));
      return;
    }
    scheduleFirstStep();
  }

  private void scheduleFirstStep() {
    // The first step (never a comment) ends these comments.
    startComments(faults.silenceFirstCommentsMillis);
    if (faults.silenceFirstMillis == FaultSpec.FOREVER) {
      return; // Silent until the client gives up.
    }
    if (gpu != null) {
      if (faults.silenceFirstMillis > 0) {
        stepTimer = ctx.executor().schedule(() -> joinBatch(gpu), faults.silenceFirstMillis, TimeUnit.MILLISECONDS);
      } else {
        joinBatch(gpu);
      }
      return;
    }
    long firstToken = TimingModel.firstTokenDelayNanos(
        engine.options, request.promptTokens(), pullsKv());
    scheduleStep(firstToken + TimeUnit.MILLISECONDS.toNanos(faults.silenceFirstMillis));
  }

  private boolean pullsKv() {
    return request.kvPull() || request.bootstrapDecode();
  }

  /** Gpu timing mode: the response's sequence joins the engine's step loop; its tokens drive the steps. */
  private void joinBatch(StepLoop loop) {
    stepTimer = null;
    String refusal = loop.refusal(request.promptTokens(), engineOutputTokens());
    if (refusal != null) {
      // Cannot happen for a request the parser admitted (the KV cache holds max_model_len), but
      // a request the engine could never run must not wait forever.
      failWith(400, refusal);
      return;
    }
    awaitingToken = true;
    seat = GpuSeat.join(loop, ctx, engine.options, request, engineOutputTokens(), internalRequestId, producerNotice,
        this::tokenProduced);
  }

  /**
   * Tokens the engine generates for this response: the length cap, or fewer when an {@code
   * eos-after} fault ends it early (at least one: an EOS is a token too).
   */
  private int engineOutputTokens() {
    if (faults.eosAfter >= 0) {
      return Math.max(1, Math.min(faults.eosAfter, request.maxTokens()));
    }
    return request.maxTokens();
  }

  private void tokenProduced() {
    produced++;
    if (awaitingToken && !ended) {
      awaitingToken = false;
      step();
    }
  }

  private RendezvousWait rendezvous() {
    if (rendezvous == null) {
      throw new IllegalStateException("not a bootstrap request");
    }
    return rendezvous;
  }

  /** The connection closed under us: stop at once. */
  void clientGone() {
    end(true, null);
  }

  void writabilityChanged() {
    if (awaitingWritability && ctx.channel().isWritable()) {
      awaitingWritability = false;
      step();
    }
  }

  private void scheduleStep(long delayNanos) {
    stepTimer = ctx.executor().schedule(this::step, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void step() {
    stepTimer = null;
    if (ended) {
      return;
    }
    stopComments(); // Any silence is over; a new one (silence-after) starts its own.
    if (gpu != null && finishReason == null && produced <= emitted) {
      awaitingToken = true; // the step loop has not produced the next token yet
      return;
    }
    if (request.stream() && !ctx.channel().isWritable()) {
      // Backpressure: produce nothing more until the client drains what it has.
      awaitingWritability = true;
      return;
    }
    if (request.stream() && request.endpoint() == GenerationEndpoint.CHAT && !roleSent) {
      roleSent = true;
      writeEvent(shapes.roleChunk(continuousUsage()));
    }
    if (applyFaultAfter(emitted)) {
      return;
    }
    if (request.bootstrapPrefill() && !rendezvous().transferred()) {
      // SGLang: the prompt is computed; answer once a decode engine has taken the KV.
      rendezvous().awaitConsumer(this::step, message -> failWith(500, message));
      return;
    }
    if (finishReason != null) {
      finish();
      return;
    }
    if (emitted == 0) {
      producerNotice.send(); // simple mode: the KV is here by the first token (gpu mode told it already)
    }
    emitToken();
    if (finishReason != null) {
      step(); // Faults due after the last token, then the end of the response.
    } else if (gpu == null) {
      scheduleStep(TimingModel.interTokenNanos(engine.options, engine.stats.activeStreams()));
    } else if (produced > emitted) {
      // Produced while the response was held back: out next, one task per token so that a long
      // backlog neither deepens the stack nor skips the writability check.
      ctx.executor().execute(this::step);
    } else {
      awaitingToken = true;
    }
  }

  /** Applies the fault due after {@code k} tokens, if any; true when it took over. */
  private boolean applyFaultAfter(int k) {
    if (faults.doneFirst && k == 0 && request.stream()) {
      ctx.write(new DefaultHttpContent(HttpResponses.sseDone(ctx.alloc())));
      endResponse(null);
      return true;
    }
    if (faults.resetAfter == k) {
      reset();
      return true;
    }
    if (faults.eofAfter == k) {
      endWithoutDone();
      return true;
    }
    if (faults.errorAfter == k) {
      fail();
      return true;
    }
    if (faults.silenceAfter == k && silencedAt != k) {
      silencedAt = k;
      goSilent();
      return true;
    }
    return false;
  }

  private void emitToken() {
    String token;
    if (faults.eosAfter == 0) {
      token = ""; // EOS straight away: a final chunk without text.
      finishReason = "stop";
    } else {
      token = tokens.next();
      emitted++;
      engine.stats.tokenGenerated();
      // EOS is checked before the length cap, as vLLM's stop checker does.
      if (faults.eosAfter == emitted) {
        finishReason = "stop";
      } else if (emitted >= request.maxTokens()) {
        finishReason = "length";
      }
    }
    if (request.stream() && finishReason == null && !request.continuousUsage()) {
      ctx.writeAndFlush(new DefaultHttpContent(shapes.midStreamTokenEvent(ctx.alloc(), token)));
    } else if (request.stream()) {
      writeEvent(shapes.tokenChunk(token, finishReason, continuousUsage()));
    } else {
      text.append(token);
    }
  }

  private @Nullable ObjectNode continuousUsage() {
    return request.continuousUsage()
        ? ResponseShapes.usage(request.promptTokens(), emitted)
        : null;
  }

  private void finish() {
    if (request.stream()) {
      if (request.includeUsage()) {
        writeEvent(shapes.usageChunk(request.promptTokens(), emitted, reportedCachedTokens()));
      }
      ctx.write(new DefaultHttpContent(HttpResponses.sseDone(ctx.alloc())));
      endResponse(finishReason);
      return;
    }
    // NixlConnector returns a descriptor only for a prefill that stopped at its length cap.
    ObjectNode kvParams = request.remoteDecode() && "length".equals(finishReason)
        ? KvTransfer.prefillDescriptor(engine.options, internalRequestId, request.promptTokens(), engine::nextBlockId,
            faults.kvFault, faults.kvExtraFields, engine.kvReleaseUrl())
        : null;
    kvHandedOver = kvParams != null;
    if (request.remoteDecode()) {
      engine.prefillResponses.add(PrefillResponse.sent(request.idBase(), responseId, kvParams));
    }
    respondFully(200, shapes.fullResponse(text.toString(), finishReason, request.promptTokens(), emitted,
            reportedCachedTokens(), kvParams),
        finishReason);
  }

  /**
   * What vLLM reports as {@code prompt_tokens_details.cached_tokens}: the prompt tokens its prefix
   * cache (and, for a decode leg, its KV transfer) spared it, only with {@code
   * --enable-prompt-tokens-details}; 0 means "not reported".
   */
  private int reportedCachedTokens() {
    GpuSeat s = seat;
    return s != null && engine.options.prefixCaching().promptTokensDetails() ? s.cachedTokens() : 0;
  }

  private void goSilent() {
    // The resume timer is scheduled first: a periodic write due at the same instant comes after
    // it (and is cancelled), so a silence of MS carries at most MS / interval of them.
    if (faults.silenceMillis != FaultSpec.FOREVER) {
      stepTimer = ctx.executor().schedule(() -> {
        stopMetadata();
        step();
      }, faults.silenceMillis, TimeUnit.MILLISECONDS);
    }
    if (request.stream() && faults.metadataEveryMillis > 0) {
      metadata = PeriodicWrite.start(ctx, faults.metadataEveryMillis, () -> writeEvent(shapes.metadataChunk()));
    }
    startComments(faults.silenceCommentsMillis);
  }

  private void stopMetadata() {
    if (metadata != null) {
      metadata.stop();
      metadata = null;
    }
  }

  /**
   * Starts writing {@code : keep-alive} comment lines every {@code intervalMillis} (0: none) until
   * the next step or the end; only a streaming response has a body open to write them into.
   */
  private void startComments(long intervalMillis) {
    if (request.stream() && intervalMillis > 0) {
      comments = PeriodicWrite.start(ctx, intervalMillis,
          () -> ctx.writeAndFlush(new DefaultHttpContent(HttpResponses.sseKeepAliveComment(ctx.alloc()))));
    }
  }

  private void stopComments() {
    if (comments != null) {
      comments.stop();
      comments = null;
    }
  }

  /** {@code reset-after}: abort the TCP connection (RST, not FIN). */
  private void reset() {
    end(false, null);
    if (ctx.channel().isActive()) {
      ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
    }
    ctx.channel().close();
  }

  /** {@code eof-after}: end the HTTP response cleanly without {@code [DONE]}. */
  private void endWithoutDone() {
    if (!request.stream()) {
      // Nothing was committed yet: send a 200 whose JSON body is empty.
      HttpResponse head = HttpResponses.chunkedHead("application/json");
      HttpUtil.setKeepAlive(head, keepConnection());
      ctx.write(head);
    }
    endResponse(null);
  }

  /**
   * {@code error-after}: vLLM's in-stream error event carrying the fault's code as given (any
   * integer or a string), or, not streaming, an HTTP error with the status that code stands for.
   */
  private void fail() {
    int status = FaultSpec.statusFor(faults.errorCode);
    String message = faults.errorMessage != null ? faults.errorMessage : ErrorBodies.defaultMessage(status);
    failWith(status, faults.errorCode, message);
  }

  private void failWith(int status, String message) {
    failWith(status, IntNode.valueOf(status), message);
  }

  /**
   * An in-stream error event whose {@code code} is {@code code}, then {@code [DONE]}, once
   * streaming; else an HTTP {@code status} error.
   */
  private void failWith(int status, JsonNode code, String message) {
    if (ended) {
      return;
    }
    if (request.stream()) {
      writeEvent(ResponseShapes.errorEvent(status, code, message));
      ctx.write(new DefaultHttpContent(HttpResponses.sseDone(ctx.alloc())));
      endResponse(null);
    } else {
      respondFully(status, ErrorBodies.envelope(engine.options.dialect(), status, message, null), null);
    }
  }

  private void respondFully(int status, ObjectNode body, @Nullable String reason) {
    if (!end(false, reason)) {
      return;
    }
    FullHttpResponse response = HttpResponses.json(ctx.alloc(), status, body);
    HttpUtil.setKeepAlive(response, keepConnection());
    completion.responseComplete(ctx.writeAndFlush(response), keepConnection());
  }

  /**
   * Ends a response whose head is already written: a chunked body with its terminal empty chunk;
   * a close-delimited one (the encoder writes nothing for the empty last part) by the close that
   * {@link #keepConnection()} being false makes the handler do once the bytes before it are out.
   */
  private void endResponse(@Nullable String reason) {
    if (!end(false, reason)) {
      return;
    }
    completion.responseComplete(ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT), keepConnection());
  }

  /** Whether the connection serves another request after this response. */
  private boolean keepConnection() {
    return keepAlive && !(request.stream() && framing == StreamFraming.CLOSE);
  }

  private void writeEvent(ObjectNode event) {
    ctx.writeAndFlush(new DefaultHttpContent(HttpResponses.sseEvent(ctx.alloc(), event)));
  }

  /** Marks the response over exactly once; false when it already was. */
  private boolean end(boolean cancelledByClient, @Nullable String reason) {
    if (ended) {
      return false;
    }
    ended = true;
    awaitingWritability = false;
    awaitingToken = false;
    if (stepTimer != null) {
      stepTimer.cancel(false);
      stepTimer = null;
    }
    stopMetadata();
    stopComments();
    if (rendezvous != null) {
      rendezvous.release(request.bootstrapPrefill(), cancelledByClient);
    }
    if (seat != null) {
      seat.close(kvHandedOver);
    }
    producerNotice.send(); // a decode that ends before its KV arrived still lets the producer free it
    engine.stats.responseEnded(request.stream(), kvBlocks, cancelledByClient, reason);
    return true;
  }
}
