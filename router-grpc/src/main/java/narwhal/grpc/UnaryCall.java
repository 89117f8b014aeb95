package narwhal.grpc;

import io.grpc.ServerCall;
import io.grpc.Status;
import narwhal.api.Arrival;
import narwhal.api.ClientErrors;
import narwhal.api.CompletionService;
import narwhal.api.ResponseBudget;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.openai.AnswerAssembler;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/**
 * {@code Complete}: the events assembled into one {@link Completion}, sent once the engine
 * stream completes. Every failure is a plain status. An answer that cannot be built (more than
 * {@code serving.max_response_bytes}, or engine output that forms no answer, such as a tool call
 * without an id) is not sent: the request is aborted (journal {@code failed}, {@code
 * response_limit} or {@code invalid_response}) and the client gets UNAVAILABLE (502 {@code
 * decode}) with the reason, as an HTTP client would.
 */
final class UnaryCall extends CompletionCall<Completion> {

  private final long maxResponseBytes;
  private @Nullable CompletionAssembler assembler;
  private @Nullable ResponseStart responseStart;

  UnaryCall(ServerCall<CompletionRequest, Completion> call, Arrival arrival, CompletionService service,
      long maxRequestBytes, long maxResponseBytes, OpenCalls openCalls, RequestValidator validator) {
    super(call, arrival, service, maxRequestBytes, openCalls, validator);
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
    } catch (AnswerAssembler.AssemblyException e) {
      unassemblable(e);
    }
  }

  @Override
  protected void completed() {
    ResponseStart rs = responseStart;
    if (rs == null) {
      respondError(ClientErrors.noTokenArrived());
      return;
    }
    Completion completion;
    try {
      completion = assembler().build(rs);
    } catch (AnswerAssembler.AssemblyException e) {
      // Called from inside the core's completion: the core journals the failure, not a success.
      unassemblable(e);
      return;
    }
    call.sendHeaders(headers(rs));
    call.sendMessage(completion);
    close(Status.OK, GrpcErrors.requestTrailers(requestId()));
  }

  /**
   * The answer cannot be sent: the core is told first (it frees the seat before the client hears
   * anything, and sends the error back when the request was still running, which closes the
   * call); otherwise the call is closed here.
   */
  private void unassemblable(AnswerAssembler.AssemblyException e) {
    RouterError error = ClientErrors.unassemblable(e.getMessage());
    abortHandle(error, e.overLimit() ? ResponseBudget.REASON : "invalid_response");
    if (!isTerminal()) {
      respondError(error);
    }
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
