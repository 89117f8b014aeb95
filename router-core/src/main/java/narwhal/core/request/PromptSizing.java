package narwhal.core.request;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import narwhal.core.fleet.EngineState;
import narwhal.core.legs.PromptCountFailure;
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
  private @Nullable Sized sized;
  private @Nullable CompletableFuture<Long> counting;

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
      settle(request.getPrompt().getTokenIds().getIdsCount(), Sized.EXACT, done);
      return;
    }
    if (!rt.settings().tokenize() || !pricedWithCount(target)) {
      settle(estimate(), Sized.ESTIMATED, done);
      return;
    }
    if (rt.countBackoff().holdsOff(target.iid(), loop.nanoTime())) {
      fallBack("backoff", done);
      return;
    }
    CompletableFuture<Long> count = rt.engines().countPrompt(target.spec(), request,
        rt.settings().tokenizeTimeoutNanos(), rt.settings().prefillLimits().exchange(), loop, countId(requestId));
    if (count == null) {
      fallBack("unsupported", done);
      return;
    }
    counting = count;
    count.whenComplete((n, error) -> {
      if (counting != count) {
        return; // cancelled: the request ended while its prompt was being counted
      }
      counting = null;
      if (error == null) {
        rt.countBackoff().succeeded(target.iid());
        settle(n, Sized.EXACT, done);
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

  /** Abandons a count in progress; {@code done} will not run. */
  void cancel() {
    CompletableFuture<Long> count = counting;
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
