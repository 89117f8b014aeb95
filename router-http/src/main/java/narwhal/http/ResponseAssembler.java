package narwhal.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import narwhal.api.ResponseStart;
import narwhal.openai.AnswerAssembler;
import narwhal.openai.AssembledAnswer;
import narwhal.openai.Json;
import narwhal.proto.v1.Route;

/**
 * Builds a non-streaming OpenAI response ({@code text_completion} or {@code chat.completion})
 * from the relayed events: the shared {@link AnswerAssembler} accumulates them (as it does for
 * gRPC's {@code Complete}) and this class renders the answer as the OpenAI JSON body. {@code
 * usage} is the engine's when it sent one, otherwise computed with the completion tokens counted
 * and the prompt tokens unknown (0). The chat {@code content} is null when the reply is only
 * reasoning, refusal or tool calls. The finished body is checked against the response limit once
 * more.
 */
final class ResponseAssembler {

  /** Why the events cannot become a response; the front-end answers 502 {@code decode}. */
  static final class AssemblyException extends Exception {
    private static final long serialVersionUID = 1L;

    /** True when the response was over serving.max_response_bytes (journal response_limit). */
    final boolean overLimit;

    AssemblyException(AnswerAssembler.AssemblyException cause) {
      super(cause.getMessage(), cause);
      this.overLimit = cause.overLimit();
    }
  }

  private final Route route;
  private final AnswerAssembler answer;

  ResponseAssembler(Route route, long maxBytes) {
    this.route = route;
    this.answer = new AnswerAssembler(route, maxBytes);
  }

  void add(ChunkView chunk) throws AssemblyException {
    try {
      answer.add(chunk.isToken(), chunk.text(), chunk.finishReason(), chunk.stopReasonJson(), chunk.usage(),
          chunk.chunkJson(), chunk.role());
    } catch (AnswerAssembler.AssemblyException e) {
      throw new AssemblyException(e);
    }
  }

  /** The whole response body; throws when it cannot be built or is over the limit. */
  byte[] build(ResponseStart start) throws AssemblyException {
    try {
      byte[] body = Json.compactBytes(render(answer.answer(), start));
      answer.fits(body.length);
      return body;
    } catch (AnswerAssembler.AssemblyException e) {
      throw new AssemblyException(e);
    }
  }

  private ObjectNode render(AssembledAnswer a, ResponseStart start) {
    ObjectNode response = Json.mapper().createObjectNode();
    OpenAiChunks.stamp(response, route, start);
    boolean chat = route == Route.ROUTE_CHAT_COMPLETIONS;
    response.put("object", chat ? "chat.completion" : "text_completion");
    ObjectNode choice = response.putArray("choices").addObject().put("index", 0);
    if (chat) {
      choice.set("message", message(a));
    } else {
      choice.put("text", a.text());
    }
    choice.set("logprobs", a.logprobs() == null ? NullNode.getInstance() : a.logprobs());
    choice.put("finish_reason", a.finishReason());
    choice.set("stop_reason", a.stopReason());
    response.set("usage", a.usageJson() != null ? a.usageJson() : computedUsage(a.completionTokens()));
    return response;
  }

  private static ObjectNode message(AssembledAnswer a) {
    ObjectNode message = Json.mapper().createObjectNode().put("role", a.role());
    message.put("content", a.onlyOtherOutput() ? null : a.text());
    a.deltaTexts().forEach(message::put);
    if (!a.toolCalls().isEmpty()) {
      ArrayNode calls = message.putArray("tool_calls");
      a.toolCalls().forEach(calls::add);
    }
    return message;
  }

  private static ObjectNode computedUsage(long tokens) {
    return Json.mapper()
        .createObjectNode()
        .put("prompt_tokens", 0)
        .put("completion_tokens", tokens)
        .put("total_tokens", tokens);
  }
}
