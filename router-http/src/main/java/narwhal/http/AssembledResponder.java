package narwhal.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import narwhal.api.ResponseBudget;
import narwhal.api.ResponseStart;
import narwhal.api.ClientErrors;
import narwhal.api.RouterError;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * A {@code stream: false} request: the events are assembled into one OpenAI response body, sent
 * once the engine stream completes. Failures at any point are plain HTTP errors. When the
 * response cannot be built (malformed engine output, or more than {@code maxResponseBytes}) the
 * request is aborted (journal {@code failed}) and the client gets 502 {@code decode}.
 */
final class AssembledResponder extends CompletionResponder {

  private final ResponseAssembler assembler;
  private @Nullable ResponseStart start;

  AssembledResponder(
      ChannelHandlerContext ctx,
      Route route,
      boolean keepAlive,
      long maxResponseBytes,
      Listener listener) {
    super(ctx, route, keepAlive, listener);
    this.assembler = new ResponseAssembler(route, maxResponseBytes);
  }

  /** Output is buffered (bounded by the response limit), so the client never holds it back. */
  @Override
  public boolean isWritable() {
    return true;
  }

  @Override
  protected void started(ResponseStart start) {
    this.start = start;
  }

  @Override
  protected void event(ChunkView chunk) {
    try {
      assembler.add(chunk);
    } catch (ResponseAssembler.AssemblyException e) {
      abortAndRespond(decodeFailure(e), failureReason(e));
    }
  }

  @Override
  protected void completed() {
    if (start == null) {
      respondNoTokenArrived();
      return;
    }
    byte[] body;
    try {
      body = assembler.build(start);
    } catch (ResponseAssembler.AssemblyException e) {
      // Called from inside the core's completion: the core journals the failure, not a success.
      abortAndRespond(decodeFailure(e), failureReason(e));
      return;
    }
    FullHttpResponse response = Responses.json(HttpResponseStatus.OK, body);
    String requestId = requestId();
    response
        .headers()
        .set(Responses.REQUEST_ID_HEADER, requestId != null ? requestId : start.requestId());
    respond(response);
  }

  @Override
  protected void failed(RouterError error) {
    respond(Responses.error(error, requestId()));
  }

  /** The journal reason: the size limit, or engine output that cannot form a response. */
  private static String failureReason(ResponseAssembler.AssemblyException e) {
    return e.overLimit ? ResponseBudget.REASON : "invalid_response";
  }

  private static RouterError decodeFailure(ResponseAssembler.AssemblyException e) {
    return ClientErrors.unassemblable(e.getMessage());
  }
}
