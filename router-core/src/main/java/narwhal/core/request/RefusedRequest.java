package narwhal.core.request;

import narwhal.api.ClientSink;
import narwhal.api.RequestHandle;
import narwhal.api.RouterError;
import narwhal.time.Scheduler;

/**
 * The handle of a request refused before it could start (already recorded): the refusal reaches
 * the sink as a plain error, as a separate task so the front-end holds this handle first.
 */
final class RefusedRequest implements RequestHandle {

  private final String requestId;
  private boolean cancelled;

  RefusedRequest(String requestId, Scheduler loop, ClientSink sink, RouterError refusal) {
    this.requestId = requestId;
    loop.execute(() -> {
      if (!cancelled) {
        sink.onError(refusal);
      }
    });
  }

  @Override
  public String requestId() {
    return requestId;
  }

  @Override
  public void cancel() {
    cancelled = true;
  }

  /** Nothing runs to stop: the refusal was recorded when it was made, and is all the row says. */
  @Override
  public void abort(RouterError error, String reason) {
    cancelled = true;
  }

  @Override
  public void clientWritable() {}
}
