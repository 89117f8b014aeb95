package narwhal.grpc;

import io.grpc.ServerCall;
import io.grpc.Status;
import narwhal.api.Arrival;
import narwhal.api.ClientErrors;
import narwhal.api.CompletionService;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.StreamDone;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/**
 * {@code StreamCompletion}: the engine's events relayed as {@link StreamEvent} messages.
 *
 * <p>Commit rule, as over HTTP: nothing is sent before the core reports the first token, so a
 * failure before it closes the call with its own status and no message. Once committed (response
 * headers with {@code x-request-id}, then the held metadata and the tokens) the stream ends with
 * one {@code done} event and OK, or with exactly one {@code error} event and the error's status,
 * so no client mistakes a failed stream for a complete one.
 *
 * <p>Flow control: the core asks {@link #isWritable()} after each event, which is gRPC's
 * {@code isReady()}; when it turns false the core stops reading from the engine until the
 * client's on-ready callback ({@link CompletionCall#onReady()}) resumes it. At most one event
 * beyond the transport's window is ever queued.
 */
final class StreamingCall extends CompletionCall<StreamEvent> {

  private static final StreamEvent DONE =
      StreamEvent.newBuilder().setDone(StreamDone.getDefaultInstance()).build();

  private boolean committed;
  /** The router's id, model and created for each event's chunk; set when the response commits. */
  private @Nullable ChunkIdentity identity;

  StreamingCall(ServerCall<CompletionRequest, StreamEvent> call, Arrival arrival, CompletionService service,
      long maxRequestBytes, OpenCalls openCalls, RequestValidator validator) {
    super(call, arrival, service, maxRequestBytes, openCalls, validator);
  }

  @Override
  protected boolean streaming() {
    return true;
  }

  @Override
  public boolean isWritable() {
    return isTerminal() || call.isReady();
  }

  @Override
  protected void started(ResponseStart responseStart) {
    if (committed) {
      return;
    }
    committed = true;
    identity = new ChunkIdentity(route(), responseStart);
    call.sendHeaders(headers(responseStart));
  }

  @Override
  protected void event(StreamEvent event) {
    if (committed) {
      // The core commits before relaying; an event ahead of onStart has nowhere to go.
      call.sendMessage(identity == null ? event : identity.stamp(event));
    }
  }

  @Override
  protected void completed() {
    if (!committed) {
      respondError(ClientErrors.noTokenArrived());
      return;
    }
    call.sendMessage(DONE);
    close(Status.OK, GrpcErrors.requestTrailers(requestId()));
  }

  @Override
  protected void failed(RouterError error) {
    if (committed) {
      call.sendMessage(GrpcErrors.event(error));
    }
    respondError(error);
  }
}
