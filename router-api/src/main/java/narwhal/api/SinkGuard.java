package narwhal.api;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A front-end's side of one submitted request: the sink contract the HTTP and gRPC front-ends
 * both enforce around {@link CompletionService#submit}.
 *
 * <ul>
 *   <li>Sink calls the core makes while {@code submit} is still on the stack are held and replayed
 *       once it returns, so the front-end knows the handle (and the request id it writes) first.
 *   <li>Once the front-end has {@link #end() ended} the exchange (outcome written, client gone),
 *       nothing more is delivered.
 *   <li>The handle is cancelled or aborted at most once.
 * </ul>
 *
 * <p>Confined to the request's scheduler, as the sink is.
 */
public final class SinkGuard {

  private @Nullable RequestHandle handle;
  private @Nullable List<Runnable> deferred;
  private boolean submitting;
  private boolean ended;
  private boolean stopped;

  /**
   * Runs {@code submit}; sink calls made during it are replayed after it returns. When it throws,
   * they are dropped: the front-end answers the failure itself.
   */
  public void submit(Supplier<RequestHandle> submit) {
    submitting = true;
    try {
      handle = submit.get();
    } catch (RuntimeException e) {
      deferred = null;
      throw e;
    } finally {
      submitting = false;
    }
    List<Runnable> early = deferred;
    deferred = null;
    if (early != null) {
      early.forEach(Runnable::run);
    }
  }

  /**
   * Whether a sink call should run now: false while {@code submit} is on the stack ({@code replay}
   * is then held and run after it) and once the exchange has ended.
   */
  public boolean accept(Runnable replay) {
    if (submitting) {
      if (deferred == null) {
        deferred = new ArrayList<>();
      }
      deferred.add(replay);
      return false;
    }
    return !ended;
  }

  /** Nothing more is delivered: the outcome is written, or the client is gone. */
  public void end() {
    ended = true;
  }

  public boolean ended() {
    return ended;
  }

  /** The router's id for the request, once submitted. */
  public @Nullable String requestId() {
    return handle == null ? null : handle.requestId();
  }

  /** The client can take output again; ignored once ended. */
  public void clientWritable() {
    if (!ended && handle != null) {
      handle.clientWritable();
    }
  }

  /** The front-end abandons an outcome the core is still producing (client gone). */
  public void cancel() {
    if (!stopped && handle != null) {
      stopped = true;
      handle.cancel();
    }
  }

  /** The front-end answers the client with {@code error} itself; see {@link RequestHandle#abort}. */
  public void abort(RouterError error, String reason) {
    if (!stopped && handle != null) {
      stopped = true;
      handle.abort(error, reason);
    }
  }
}
