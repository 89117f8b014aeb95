package narwhal.core.request;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import narwhal.core.fleet.EngineState;
import narwhal.core.legs.PromptCountFailure;
import narwhal.core.legs.PromptTokens;
import narwhal.core.profile.PromptSize;
import narwhal.proto.v1.CompletionRequest;
import narwhal.time.Durations;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sizes one request's prompt before admission prices it and its reservations weigh it. A token-id
 * prompt is counted here; text is counted exactly by an engine's tokenize route when {@code
 * engine.tokenize} is on and something prices with the count, else estimated from {@code
 * engine.chars_per_token} ({@link PromptSize}).
 *
 * <p>Why only when priced: the count is one more engine round trip on the path to the first token,
 * and one more request the engine serves. Predictive admission on a profiled engine and priced
 * placement decide with it; without them it would only weigh the reservations that balance
 * least-resident-work placement, where the estimate does as well, and the journal's {@code
 * input_len}, which takes the engine's own {@code usage.prompt_tokens} when it reports one.
 *
 * <p>With cache-aware placement on ({@code cache.mode} not off), the route is asked for the
 * prompt's token ids too, whether or not anything prices with the count: placement hashes them to
 * find which engine holds the prompt's prefix. A token-id prompt needs no round trip either way.
 *
 * <p>The count is asked of the engine placement would pick for prefill, never blocks the loop, is
 * bounded by {@code engine.tokenize_timeout_s} (and by the request's deadline, which cancels it
 * through {@link #cancel}), and falls back to the estimate when the dialect has no route for the
 * prompt, the engine fails or is slow, or its route failed moments ago ({@link
 * PromptCountBackoff}); each fallback is counted in {@code narwhal_tokenize_fallbacks_total}.
 * Confined to the request's loop.
 */
final class PromptSizing {

  private static final Logger log = LoggerFactory.getLogger(PromptSizing.class);

  /** How the prompt was sized: the journal's {@code input_sized}. */
  enum Sized {
    EXACT, ESTIMATED;

    String wireName() {
      return this == EXACT ? "exact" : "estimated";
    }
  }

  private final RouterRuntime rt;
  private final CompletionRequest request;
  private final Scheduler loop;
  private final String requestId;
  private long tokens;
  private int @Nullable [] tokenIds;
  private @Nullable Sized sized;
  private @Nullable CompletableFuture<?> counting;

  PromptSizing(RouterRuntime rt, CompletionRequest request, Scheduler loop, String requestId) {
    this.rt = rt;
    this.request = request;
    this.loop = loop;
    this.requestId = requestId;
  }

  /** The router's estimate, what the request weighs until (and unless) it is counted exactly. */
  long estimate() {
    return PromptSize.estimate(request, rt.settings().charsPerToken());
  }

  /** The prompt's size in tokens once sized. */
  long tokens() {
    return tokens;
  }

  /** The prompt's token ids once sized, when cache-aware placement wanted them and they are known; else null. */
  int @Nullable [] tokenIds() {
    return tokenIds;
  }

  /** How it was sized, or null before it was. */
  @Nullable Sized sized() {
    return sized;
  }

  /** The backend request id a count carries ({@code <rid>-c}). */
  static String countId(String rid) {
    return rid + "-c";
  }

  /**
   * Sizes the prompt, asking {@code target}'s tokenize route when that applies, and runs {@code
   * done} on the loop once it is sized: at once when nothing is asked, else when the count
   * answers, fails or times out. Not run after {@link #cancel}.
   */
  void size(EngineState target, Runnable done) {
    if (request.hasPrompt() && request.getPrompt().hasTokenIds()) {
      if (rt.cache().enabled()) {
        tokenIds = ids(request.getPrompt().getTokenIds().getIdsList());
      }
      settle(request.getPrompt().getTokenIds().getIdsCount(), Sized.EXACT, done);
      return;
    }
    boolean wantIds = rt.cache().enabled();
    if (!rt.settings().tokenize() || !(wantIds || pricedWithCount(target))) {
      settle(estimate(), Sized.ESTIMATED, done);
      return;
    }
    if (rt.countBackoff().holdsOff(target.iid(), loop.nanoTime())) {
      fallBack("backoff", done);
      return;
    }
    CompletableFuture<PromptTokens> count = rt.engines().tokenize(target.spec(), request,
        rt.settings().tokenizeTimeoutNanos(), rt.settings().prefillLimits().exchange(), loop, countId(requestId), wantIds);
    if (count == null) {
      fallBack("unsupported", done);
      return;
    }
    counting = count;
    count.whenComplete((answer, error) -> {
      if (counting != count) {
        return; // cancelled: the request ended while its prompt was being counted
      }
      counting = null;
      if (error == null) {
        rt.countBackoff().succeeded(target.iid());
        tokenIds = answer.ids();
        settle(answer.count(), Sized.EXACT, done);
        return;
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause instanceof CancellationException) {
        return;
      }
      boolean timedOut = cause instanceof PromptCountFailure f && f.timedOut();
      long heldOff = rt.countBackoff().failed(target.iid(), loop.nanoTime());
      log.warn("prompt count failed, estimating from engine.chars_per_token instead; engine {} is not asked to "
          + "count for {}: {}", target.iid(), Durations.describe(heldOff), cause.getMessage());
      fallBack(timedOut ? "timeout" : "error", done);
    });
  }

  /**
   * True when a decision waits on the count: predictive admission would price the request on
   * {@code target}, or placement ranks engines by their profiles.
   */
  private boolean pricedWithCount(EngineState target) {
    return rt.predictive().prices(target)
        || rt.placementCost().pricesPrefill(rt.fleet())
        || rt.placementCost().pricesDecode(rt.fleet());
  }

  /** Token ids as placement hashes them; null when one does not fit an int (no such vocabulary). */
  private static int @Nullable [] ids(java.util.List<Long> ids) {
    int[] out = new int[ids.size()];
    for (int i = 0; i < out.length; i++) {
      long id = ids.get(i);
      if (id < 0 || id > Integer.MAX_VALUE) {
        return null;
      }
      out[i] = (int) id;
    }
    return out;
  }

  /** Abandons a count in progress; {@code done} will not run. */
  void cancel() {
    CompletableFuture<?> count = counting;
    counting = null;
    if (count != null) {
      count.cancel(false);
    }
  }

  private void fallBack(String cause, Runnable done) {
    rt.outcomes().metrics().tokenizeFallback(cause);
    settle(estimate(), Sized.ESTIMATED, done);
  }

  private void settle(long n, Sized how, Runnable done) {
    tokens = Math.max(0, n);
    sized = how;
    done.run();
  }
}
