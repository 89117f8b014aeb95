package narwhal.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import narwhal.api.ResponseBudget;
import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.proto.v1.Usage;
import org.jspecify.annotations.Nullable;

/**
 * Accumulates a relayed stream into one non-streaming answer ({@link AssembledAnswer}), for both
 * front-ends, so an HTTP {@code stream: false} response and a gRPC {@code Complete} carry the same
 * output.
 *
 * <p>Text, reasoning and refusal deltas concatenate; tool calls merge per index (id, type and
 * name from the first delta that sets them, arguments appended); logprobs arrays concatenate;
 * {@code finish_reason} and {@code stop_reason} come from the last chunk that sets them; usage is
 * the engine's last. Engine output that cannot form an answer (a tool call without an id, a
 * {@code tool_calls} that is not an array, ...) is refused.
 *
 * <p>Memory is bounded: the collected output is measured in UTF-8 bytes as it arrives ({@link
 * ResponseBudget}) and the assembler refuses as soon as the answer must exceed the limit; the
 * front-end checks its finished message once more ({@link #fits}).
 *
 * <p>Not thread-safe: one per request, on the request's event loop.
 */
public final class AnswerAssembler {

  /** Why the events cannot become an answer; the front-end answers 502 {@code decode}. */
  public static final class AssemblyException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean overLimit;

    AssemblyException(String message, boolean overLimit) {
      super(message);
      this.overLimit = overLimit;
    }

    /** True when the answer was over serving.max_response_bytes (journal response_limit). */
    public boolean overLimit() {
      return overLimit;
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
  private @Nullable JsonNode usageJson;
  private @Nullable Usage usage;
  private String role = "assistant";
  private long tokens;

  public AnswerAssembler(Route route, long maxBytes) {
    this.route = route;
    this.budget = new ResponseBudget(maxBytes);
  }

  /** Adds a token or metadata event; other kinds carry no output. */
  public void add(StreamEvent event) throws AssemblyException {
    if (event.hasToken()) {
      TokenDelta t = event.getToken();
      add(true, t.getText(), t.hasFinishReason() ? t.getFinishReason() : null, t.getStopReasonJson(),
          t.hasUsage() ? t.getUsage() : null, t.getChunkJson(), t.getRole());
    } else if (event.hasMetadata()) {
      MetadataChunk m = event.getMetadata();
      add(false, "", m.hasFinishReason() ? m.getFinishReason() : null, m.getStopReasonJson(),
          m.hasUsage() ? m.getUsage() : null, m.getChunkJson(), m.getRole());
    }
  }

  /**
   * Adds one chunk's fields (those a {@link TokenDelta} and a {@link MetadataChunk} share).
   *
   * @param isToken true for generated output, false for a metadata chunk
   */
  public void add(boolean isToken, String chunkText, @Nullable String chunkFinishReason, String stopReasonJson,
      @Nullable Usage chunkUsage, String chunkJson, String chunkRole) throws AssemblyException {
    if (isToken) {
      tokens++;
      text.append(chunkText);
      grow(chunkText);
    }
    if (chunkFinishReason != null) {
      finishReason = chunkFinishReason;
    }
    JsonNode stop = parseOrNull(stopReasonJson);
    if (stop != null && !stop.isNull()) {
      stopReason = stop;
    }
    if (chunkUsage != null) {
      usage = chunkUsage;
      usageJson = usageJson(chunkUsage);
    }
    if (!chunkRole.isEmpty()) {
      role = chunkRole;
    }
    if (!chunkJson.isEmpty()) {
      addEngineChunk(chunkJson);
    }
  }

  /** The answer so far; throws when a tool call cannot be completed. */
  public AssembledAnswer answer() throws AssemblyException {
    List<ObjectNode> calls = new ArrayList<>(toolCalls.size());
    for (Map.Entry<Integer, ObjectNode> call : toolCalls.entrySet()) {
      ObjectNode merged = call.getValue();
      if (merged.path("id").isNull() || merged.path("id").isMissingNode()) {
        throw new AssemblyException("tool call " + call.getKey() + " has no id", false);
      }
      if (merged.path("function").path("name").isNull()) {
        throw new AssemblyException("tool call " + call.getKey() + " has no function name", false);
      }
      calls.add(merged);
    }
    Map<String, String> texts = new LinkedHashMap<>();
    deltaTexts.forEach((name, value) -> texts.put(name, value.toString()));
    return new AssembledAnswer(text.toString(), role, finishReason, stopReason, usageJson, usage, tokens,
        Collections.unmodifiableMap(texts), Collections.unmodifiableList(calls), logprobs);
  }

  /** Checks the finished message's size; throws when it is over the limit. */
  public void fits(long messageBytes) throws AssemblyException {
    if (!budget.fits(messageBytes)) {
      throw overflow();
    }
  }

  /** The usage object HTTP returns for a typed usage. */
  public static ObjectNode usageJson(Usage usage) {
    return Json.mapper()
        .createObjectNode()
        .put("prompt_tokens", usage.getPromptTokens())
        .put("completion_tokens", usage.getCompletionTokens())
        .put("total_tokens", usage.getTotalTokens());
  }

  private void addEngineChunk(String chunkJson) throws AssemblyException {
    JsonNode chunk = parseOrNull(chunkJson);
    if (!(chunk instanceof ObjectNode)) {
      throw new AssemblyException("engine chunk is not a JSON object", false);
    }
    JsonNode engineUsage = chunk.get("usage");
    if (engineUsage != null && engineUsage.isObject()) {
      // The engine's own object keeps fields the typed Usage lacks (prompt_tokens_details).
      usageJson = engineUsage;
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
        throw new AssemblyException("delta.tool_calls is not an array", false);
      }
      for (int i = 0; i < calls.size(); i++) {
        mergeToolCall(calls.get(i), i);
      }
    }
  }

  private void mergeToolCall(JsonNode delta, int position) throws AssemblyException {
    if (!delta.isObject()) {
      throw new AssemblyException("tool call delta is not an object", false);
    }
    JsonNode indexNode = delta.get("index");
    int index = indexNode != null && indexNode.canConvertToInt() ? indexNode.intValue() : position;
    ObjectNode merged = toolCalls.computeIfAbsent(index, i -> {
      ObjectNode call = Json.mapper().createObjectNode().putNull("id").put("type", "function");
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
      throw new AssemblyException("choice.logprobs is not an object", false);
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

  private static @Nullable JsonNode parseOrNull(String json) {
    if (json.isEmpty()) {
      return null;
    }
    try {
      return Json.mapper().readTree(json);
    } catch (JsonProcessingException e) {
      return null;
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
