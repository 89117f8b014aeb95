package narwhal.core.checks;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineSpec;
import narwhal.api.InvalidRequestException;
import narwhal.time.Scheduler;
import narwhal.core.legs.DecodeListener;
import narwhal.core.legs.EngineClient;
import narwhal.spi.HandoffStyle;
import narwhal.core.legs.EngineFailure;
import narwhal.spi.PrefillResult;
import narwhal.openai.Json;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/**
 * The probe's two legs through the router's own {@link EngineClient}: a tiny completion (two
 * tokens) so a probe costs an engine almost nothing, each leg bounded by {@code
 * engine.first_token_timeout_s}. No reservation is taken: a probe is not client work.
 */
final class ProbeLegs {

  static final String PROMPT = "narwhal probe";
  static final int MAX_TOKENS = 2;

  private final EngineClient client;
  private final CheckSettings settings;
  private final CompletionRequest request;

  ProbeLegs(EngineClient client, CheckSettings settings) {
    this.client = client;
    this.settings = settings;
    this.request = request(settings.model());
  }

  /** The producer's handoff, or an exceptional future holding the {@link EngineFailure}. */
  CompletableFuture<PrefillResult> prefill(EngineSpec producer, Scheduler loop) {
    return client.prefill(producer, request, settings.prefillLimits(), loop);
  }

  /**
   * A decode on {@code consumer}: with {@code handoff} from another engine it pulls that KV; with
   * none (or its own) it recomputes or hits its prefix cache. Completes with the token count once
   * the stream reached {@code [DONE]}, or exceptionally with the {@link EngineFailure}.
   */
  CompletableFuture<Integer> decode(EngineSpec consumer, @Nullable PrefillResult handoff, Scheduler loop) {
    CompletableFuture<Integer> done = new CompletableFuture<>();
    client.decode(consumer, request, handoff, settings.decodeLimits(), loop, listener(done));
    return done;
  }

  /** True when {@code producer}'s dialect sends both legs at once (e.g. SGLang). */
  boolean concurrent(EngineSpec producer) {
    return client.handoffStyle(producer) == HandoffStyle.CONCURRENT;
  }

  /**
   * Both legs of a concurrent handoff at once, as requests run them: completes with the token
   * count once the decode reached {@code [DONE]} and the producer answered, or exceptionally with
   * the first leg's {@link EngineFailure} (the other leg is then cancelled).
   */
  CompletableFuture<Integer> transferConcurrently(EngineSpec producer, EngineSpec consumer, Scheduler loop) {
    CompletableFuture<Integer> decoded = new CompletableFuture<>();
    EngineClient.ConcurrentLegs legs = client.concurrent(producer, consumer, request, request,
        settings.prefillLimits(), settings.decodeLimits(), loop, listener(decoded));
    legs.prefill().whenComplete((ignored, error) -> {
      if (error != null && !decoded.isDone()) {
        legs.decode().cancel();
        decoded.completeExceptionally(error);
      }
    });
    decoded.whenComplete((tokens, error) -> {
      if (error != null) {
        legs.prefill().cancel(false);
      }
    });
    return decoded.thenCombine(legs.prefill(), (tokens, handoff) -> tokens);
  }

  private static DecodeListener listener(CompletableFuture<Integer> done) {
    return new DecodeListener() {
      private int tokens;

      @Override
      public void onEvent(StreamEvent event) {
        if (event.hasToken()) {
          tokens++;
        }
      }

      @Override
      public void onComplete() {
        done.complete(tokens);
      }

      @Override
      public void onFailure(EngineFailure failure) {
        done.completeExceptionally(failure);
      }
    };
  }

  private static CompletionRequest request(String model) {
    String body = Json.mapper().createObjectNode()
        .put("model", model)
        .put("prompt", PROMPT)
        .put("max_tokens", MAX_TOKENS)
        .put("stream", true)
        .toString();
    try {
      return OpenAiRequestCodec.parse(body.getBytes(StandardCharsets.UTF_8), Route.ROUTE_COMPLETIONS, null);
    } catch (InvalidRequestException e) {
      throw new IllegalStateException("the probe request is invalid: " + e.getMessage(), e);
    }
  }
}
