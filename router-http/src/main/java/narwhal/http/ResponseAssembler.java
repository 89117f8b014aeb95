package narwhal.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import narwhal.api.ResponseBudget;
import narwhal.api.ResponseStart;
import narwhal.openai.Json;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * Builds a non-streaming OpenAI response ({@code text_completion} or {@code chat.completion})
 * from the relayed events.
 *
 * <p>Text, reasoning and refusal deltas concatenate; tool calls merge per index (id, type and
 * name from the first delta that sets them, arguments appended); logprobs arrays concatenate;
 * {@code finish_reason} and {@code stop_reason} come from the last chunk that sets them;
 * {@code usage} is the engine's when it sent one, otherwise computed with the completion tokens
 * counted and the prompt tokens unknown (0). The chat {@code content} is null when the reply is
 * only reasoning, refusal or tool calls.
 *
 * <p>Memory is bounded: the collected output is measured in UTF-8 bytes as it arrives ({@link
 * ResponseBudget}, as gRPC's {@code Complete} does) and the assembler reports an overflow as soon
 * as the response must exceed the limit; the finished body is checked once more.
 */
final class ResponseAssembler {

  /** Why the events cannot become a response; the front-end answers 502 {@code decode}. */
  static final class AssemblyException extends Exception {
    private static final long serialVersionUID = 1L;

    /** True when the response was over serving.max_response_bytes (journal response_limit). */
    final boolean overLimit;

    AssemblyException(String message) {
      this(message, false);
    }

    AssemblyException(String message, boolean overLimit) {
      super(message);
      this.overLimit = overLimit;
    }
  }

  private static final String[] CONCATENATED_DELTA_FIELDS = {
    "reasoning_content", "reasoning", "refusal"
  };

  private final Route route;
  private final ResponseBudget budget;
  private final StringBuilder text = new StringBuilder();
  private final Map<String, StringBuilder> deltaTexts = new LinkedHashMap<>();
  private final TreeMap<Integer, ObjectNode> toolCalls = new TreeMap<>();
  private @Nullable ObjectNode logprobs;
  private @Nullable String finishReason;
  private JsonNode stopReason = NullNode.getInstance();
  private @Nullable JsonNode usage;
  private String role = "assistant";
  private long tokens;

  ResponseAssembler(Route route, long maxBytes) {
    this.route = route;
    this.budget = new ResponseBudget(maxBytes);
  }

  void add(ChunkView chunk) throws AssemblyException {
    if (chunk.isToken()) {
      tokens++;
      text.append(chunk.text());
      grow(chunk.text());
    }
    if (chunk.finishReason() != null) {
      finishReason = chunk.finishReason();
    }
    JsonNode stop = OpenAiChunks.stopReason(chunk.stopReasonJson());
    if (!stop.isNull()) {
      stopReason = stop;
    }
    if (chunk.usage() != null) {
      usage = OpenAiChunks.usage(chunk.usage());
    }
    if (!chunk.role().isEmpty()) {
      role = chunk.role();
    }
    if (!chunk.chunkJson().isEmpty()) {
      addEngineChunk(chunk.chunkJson());
    }
  }

  /** The whole response body; throws when it cannot be built or is over the limit. */
  byte[] build(ResponseStart start) throws AssemblyException {
    ObjectNode response = Json.mapper().createObjectNode();
    OpenAiChunks.stamp(response, route, start);
    boolean chat = route == Route.ROUTE_CHAT_COMPLETIONS;
    response.put("object", chat ? "chat.completion" : "text_completion");
    ObjectNode choice = response.putArray("choices").addObject().put("index", 0);
    if (chat) {
      choice.set("message", message());
    } else {
      choice.put("text", text.toString());
    }
    choice.set("logprobs", logprobs == null ? NullNode.getInstance() : logprobs);
    choice.put("finish_reason", finishReason);
    choice.set("stop_reason", stopReason);
    response.set("usage", usage != null ? usage : computedUsage());
    byte[] body = Json.compactBytes(response);
    if (!budget.fits(body.length)) {
      throw overflow();
    }
    return body;
  }

  private ObjectNode message() throws AssemblyException {
    ObjectNode message = Json.mapper().createObjectNode().put("role", role);
    boolean onlyOtherOutput = text.length() == 0 && (!toolCalls.isEmpty() || !deltaTexts.isEmpty());
    message.put("content", onlyOtherOutput ? null : text.toString());
    deltaTexts.forEach((name, value) -> message.put(name, value.toString()));
    if (!toolCalls.isEmpty()) {
      ArrayNode calls = message.putArray("tool_calls");
      for (Map.Entry<Integer, ObjectNode> call : toolCalls.entrySet()) {
        ObjectNode merged = call.getValue();
        if (merged.path("id").isNull() || merged.path("id").isMissingNode()) {
          throw new AssemblyException("tool call " + call.getKey() + " has no id");
        }
        if (merged.path("function").path("name").isNull()) {
          throw new AssemblyException("tool call " + call.getKey() + " has no function name");
        }
        calls.add(merged);
      }
    }
    return message;
  }

  private ObjectNode computedUsage() {
    return Json.mapper()
        .createObjectNode()
        .put("prompt_tokens", 0)
        .put("completion_tokens", tokens)
        .put("total_tokens", tokens);
  }

  private void addEngineChunk(String chunkJson) throws AssemblyException {
    JsonNode chunk = OpenAiChunks.parseOrNull(chunkJson);
    if (!(chunk instanceof ObjectNode)) {
      throw new AssemblyException("engine chunk is not a JSON object");
    }
    JsonNode engineUsage = chunk.get("usage");
    if (engineUsage != null && engineUsage.isObject()) {
      // The engine's own object keeps fields the typed Usage lacks (prompt_tokens_details).
      usage = engineUsage;
    }
    JsonNode choices = chunk.path("choices");
    if (!choices.isArray() || choices.isEmpty()) {
      return;
    }
    JsonNode choice = choices.get(0);
    mergeLogprobs(choice.get("logprobs"));
    JsonNode delta = choice.get("delta");
    if (route != Route.ROUTE_CHAT_COMPLETIONS || delta == null || !delta.isObject()) {
      return;
    }
    for (String name : CONCATENATED_DELTA_FIELDS) {
      JsonNode value = delta.get(name);
      if (value != null && value.isTextual()) {
        deltaTexts.computeIfAbsent(name, n -> new StringBuilder()).append(value.textValue());
        grow(value.textValue());
      }
    }
    JsonNode calls = delta.get("tool_calls");
    if (calls != null && !calls.isNull()) {
      if (!calls.isArray()) {
        throw new AssemblyException("delta.tool_calls is not an array");
      }
      for (int i = 0; i < calls.size(); i++) {
        mergeToolCall(calls.get(i), i);
      }
    }
  }

  private void mergeToolCall(JsonNode delta, int position) throws AssemblyException {
    if (!delta.isObject()) {
      throw new AssemblyException("tool call delta is not an object");
    }
    JsonNode indexNode = delta.get("index");
    int index = indexNode != null && indexNode.canConvertToInt() ? indexNode.intValue() : position;
    ObjectNode merged =
        toolCalls.computeIfAbsent(
            index,
            i -> {
              ObjectNode call =
                  Json.mapper().createObjectNode().putNull("id").put("type", "function");
              call.putObject("function").putNull("name").put("arguments", "");
              return call;
            });
    setIfUnset(merged, "id", delta.get("id"));
    JsonNode type = delta.get("type");
    if (type != null && type.isTextual()) {
      merged.set("type", type);
    }
    JsonNode function = delta.get("function");
    if (function != null && function.isObject()) {
      ObjectNode target = (ObjectNode) merged.get("function");
      setIfUnset(target, "name", function.get("name"));
      JsonNode arguments = function.get("arguments");
      if (arguments != null && arguments.isTextual()) {
        target.put("arguments", target.get("arguments").textValue() + arguments.textValue());
        grow(arguments.textValue());
      }
    }
  }

  private static void setIfUnset(ObjectNode target, String name, @Nullable JsonNode value) {
    if (value != null && value.isTextual() && target.get(name).isNull()) {
      target.set(name, value);
    }
  }

  /** Appends each array field of {@code delta} to the collected logprobs; others: last wins. */
  private void mergeLogprobs(@Nullable JsonNode delta) throws AssemblyException {
    if (delta == null || delta.isNull()) {
      return;
    }
    if (!delta.isObject()) {
      throw new AssemblyException("choice.logprobs is not an object");
    }
    if (logprobs == null) {
      logprobs = Json.mapper().createObjectNode();
    }
    for (Map.Entry<String, JsonNode> field : delta.properties()) {
      JsonNode value = field.getValue();
      JsonNode existing = logprobs.get(field.getKey());
      if (value.isArray() && existing != null && existing.isArray()) {
        ((ArrayNode) existing).addAll((ArrayNode) value);
      } else {
        logprobs.set(field.getKey(), value.deepCopy());
      }
      grow(value.toString());
    }
  }

  private void grow(String collected) throws AssemblyException {
    if (!budget.add(collected)) {
      throw overflow();
    }
  }

  private AssemblyException overflow() {
    return new AssemblyException(budget.overLimitMessage(), true);
  }
}
