package narwhal.core.profile.measure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineSpec;
import narwhal.core.legs.DecodeCall;
import narwhal.core.legs.DecodeListener;
import narwhal.core.legs.EngineClient;
import narwhal.core.legs.EngineFailure;
import narwhal.core.legs.LegLimits;
import narwhal.core.profile.DecodeSample;
import narwhal.proto.v1.StreamEvent;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * One batch of a decode measurement: k streams of the same prompt length sent at once, each a
 * decode leg without a handoff (the engine computes its own prompt, then streams), every token's
 * arrival time read from the scheduler's clock. Completes with the batch's {@link SteadyWindow}
 * sample (empty when it had none) once every stream ended, or exceptionally with the first
 * stream's failure (the others are cancelled then). Confined to its scheduler; used once.
 */
final class DecodeBatch {

  private final EngineClient client;
  private final EngineSpec engine;
  private final LegLimits limits;
  private final Scheduler loop;
  private final List<Stream> streams = new ArrayList<>();
  private final CompletableFuture<Optional<DecodeSample>> out = new CompletableFuture<>();

  DecodeBatch(EngineClient client, EngineSpec engine, LegLimits limits, Scheduler loop) {
    this.client = client;
    this.engine = engine;
    this.limits = limits;
    this.loop = loop;
  }

  CompletableFuture<Optional<DecodeSample>> run(TokenPrompts prompts, int k, long promptTokens, int outputTokens) {
    for (int i = 0; i < k; i++) {
      streams.add(new Stream(outputTokens, promptTokens));
    }
    for (Stream s : streams) {
      if (out.isDone()) {
        break; // an earlier stream failed as it was sent; the rest are never sent
      }
      s.call = client.decode(engine, prompts.completion(promptTokens, outputTokens, true), null, limits, loop, s);
    }
    return out;
  }

  private void ended() {
    if (out.isDone() || !streams.stream().allMatch(s -> s.ended)) {
      return;
    }
    List<long[]> times = new ArrayList<>();
    long[] prompts = new long[streams.size()];
    for (int i = 0; i < streams.size(); i++) {
      times.add(Arrays.copyOf(streams.get(i).times, streams.get(i).tokens));
      prompts[i] = streams.get(i).promptTokens;
    }
    out.complete(Optional.ofNullable(SteadyWindow.read(times, prompts)));
  }

  private void failed(EngineFailure failure) {
    if (out.completeExceptionally(failure)) {
      for (Stream s : streams) {
        if (!s.ended && s.call != null) {
          s.ended = true;
          s.call.cancel();
        }
      }
    }
  }

  /** One stream's token arrival times. */
  private final class Stream implements DecodeListener {
    private final long promptTokens;
    private long[] times;
    private int tokens;
    private boolean ended;
    private @Nullable DecodeCall call;

    Stream(int expectedTokens, long promptTokens) {
      this.times = new long[Math.max(2, expectedTokens)];
      this.promptTokens = promptTokens;
    }

    @Override
    public void onEvent(StreamEvent event) {
      if (!event.hasToken()) {
        return;
      }
      if (tokens == times.length) {
        times = Arrays.copyOf(times, times.length * 2);
      }
      times[tokens++] = loop.nanoTime();
    }

    @Override
    public void onComplete() {
      ended = true;
      ended();
    }

    @Override
    public void onFailure(EngineFailure failure) {
      ended = true;
      failed(failure);
    }
  }
}
