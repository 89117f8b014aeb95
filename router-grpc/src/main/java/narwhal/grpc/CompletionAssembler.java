package narwhal.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import narwhal.api.ResponseStart;
import narwhal.openai.AnswerAssembler;
import narwhal.openai.AssembledAnswer;
import narwhal.openai.Json;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.FunctionCall;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.ToolCall;
import narwhal.proto.v1.Usage;

/**
 * Builds a {@code Complete} answer from the relayed events with the assembler the HTTP front-end
 * uses for non-streaming responses ({@link AnswerAssembler}), so both carry the same output: the
 * text, the last {@code finish_reason} and {@code stop_reason}, the engine's usage when it sent
 * one (otherwise the generated chunks counted, prompt tokens 0), the chat role, and the chat
 * reasoning, refusal and tool calls, and the logprobs. Memory is bounded as for HTTP; the
 * finished message, framing included, is checked once more.
 */
final class CompletionAssembler {

  private final Route route;
  private final AnswerAssembler answer;

  CompletionAssembler(Route route, long maxBytes) {
    this.route = route;
    this.answer = new AnswerAssembler(route, maxBytes);
  }

  void add(StreamEvent event) throws AnswerAssembler.AssemblyException {
    answer.add(event);
  }

  /** The answer; throws when it cannot be built or the whole message is over the limit. */
  Completion build(ResponseStart start) throws AnswerAssembler.AssemblyException {
    AssembledAnswer a = answer.answer();
    boolean chat = route == Route.ROUTE_CHAT_COMPLETIONS;
    Completion.Builder out = Completion.newBuilder()
        .setId((chat ? "chatcmpl-" : "cmpl-") + start.requestId())
        .setModel(start.model())
        .setRoute(route)
        .setText(a.text())
        .setCreated(start.createdEpochSeconds())
        .setUsage(a.usage() != null ? a.usage() : Usage.newBuilder()
            .setCompletionTokens(a.completionTokens()).setTotalTokens(a.completionTokens()).build());
    if (a.finishReason() != null) {
      out.setFinishReason(a.finishReason());
    }
    if (!a.stopReason().isNull()) {
      out.setStopReasonJson(Json.compact(a.stopReason()));
    }
    if (a.logprobs() != null) {
      out.setLogprobsJson(Json.compact(a.logprobs()));
    }
    if (chat) {
      out.setRole(a.role()).setReasoning(a.reasoning()).setRefusal(a.refusal());
      for (ObjectNode call : a.toolCalls()) {
        out.addToolCalls(toolCall(call));
      }
    }
    Completion completion = out.build();
    answer.fits(completion.getSerializedSize());
    return completion;
  }

  /** A merged tool call ({@code {id, type, function: {name, arguments}}}, id and name present). */
  private static ToolCall toolCall(ObjectNode call) {
    JsonNode function = call.path("function");
    return ToolCall.newBuilder()
        .setId(call.path("id").asText())
        .setType(call.path("type").asText("function"))
        .setFunction(FunctionCall.newBuilder()
            .setName(function.path("name").asText())
            .setArguments(function.path("arguments").asText()))
        .build();
  }
}
