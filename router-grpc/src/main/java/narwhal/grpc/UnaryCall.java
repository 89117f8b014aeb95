package narwhal.grpc;

import io.grpc.ServerCall;
import io.grpc.Status;
import narwhal.core.api.ClientErrors;
import narwhal.core.api.CompletionService;
import narwhal.core.api.ResponseStart;
import narwhal.core.api.RouterError;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/**
 * {@code Complete}: the events assembled into one {@link Completion}, sent once the engine
 * stream completes. Every failure is a plain status. An answer over
 * {@code serving.max_response_bytes} is not sent: the request is aborted (journal {@code failed},
 * {@code response_limit}) and the client gets UNAVAILABLE (502 {@code decode}) naming the limit,
 * as an HTTP client would.
 */
final class UnaryCall extends CompletionCall<Completion> {

  private final long maxResponseBytes;
  private @Nullable CompletionAssembler assembler;
  private @Nullable ResponseStart responseStart;

  UnaryCall(ServerCall<CompletionRequest, Completion> call, CallStart start, CompletionService service,
      long maxRequestBytes, long maxResponseBytes, OpenCalls openCalls) {
    super(call, start, service, maxRequestBytes, openCalls);
    this.maxResponseBytes = maxResponseBytes;
  }

  @Override
  protected boolean streaming() {
    return false;
  }

  /** Output is buffered (bounded by the response limit), so the client never holds it back. */
  @Override
  public boolean isWritable() {
    return true;
  }

  @Override
  protected void started(ResponseStart start) {
    this.responseStart = start;
  }

  @Override
  protected void event(StreamEvent event) {
    if (responseStart == null) {
      return;
    }
    try {
      assembler().add(event);
    } catch (CompletionAssembler.OverflowException e) {
      // Answered first: the call is then closed to the error the abort makes the core send.
      RouterError error = ClientErrors.unassemblable(e.getMessage());
      respondError(error);
      abortHandle(error, "response_limit");
    }
  }

  @Override
  protected void completed() {
    ResponseStart rs = responseStart;
    if (rs == null) {
      respondError(ClientErrors.noTokenArrived());
      return;
    }
    call.sendHeaders(headers(rs));
    call.sendMessage(assembler().build(rs));
    close(Status.OK, GrpcErrors.requestTrailers(requestId()));
  }

  @Override
  protected void failed(RouterError error) {
    respondError(error);
  }

  private CompletionAssembler assembler() {
    if (assembler == null) {
      assembler = new CompletionAssembler(route(), maxResponseBytes);
    }
    return assembler;
  }
}
