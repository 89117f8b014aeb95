package narwhal.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import narwhal.api.ResponseStart;
import narwhal.openai.AnswerAssembler;
import narwhal.openai.Json;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.Usage;
import org.jspecify.annotations.Nullable;

/** OpenAI names and small JSON pieces shared by the SSE relay and the response assembler. */
final class OpenAiChunks {

  private OpenAiChunks() {}

  /** {@code cmpl-<rid>} or {@code chatcmpl-<rid>}, as vLLM names its responses. */
  static String responseId(Route route, String requestId) {
    return (route == Route.ROUTE_CHAT_COMPLETIONS ? "chatcmpl-" : "cmpl-") + requestId;
  }

  static String chunkObject(Route route) {
    return route == Route.ROUTE_CHAT_COMPLETIONS ? "chat.completion.chunk" : "text_completion";
  }

  /** The text as a JSON tree, or null when it is empty or not JSON. */
  static @Nullable JsonNode parseOrNull(String json) {
    if (json.isEmpty()) {
      return null;
    }
    try {
      return Json.mapper().readTree(json);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /** A stop reason's JSON text as a node; empty or unreadable text is {@code null}. */
  static JsonNode stopReason(String stopReasonJson) {
    JsonNode node = parseOrNull(stopReasonJson);
    return node == null ? NullNode.getInstance() : node;
  }

  static ObjectNode usage(Usage usage) {
    return AnswerAssembler.usageJson(usage);
  }

  /** Stamps the router's identity on a chunk or response: id, model and created. */
  static void stamp(ObjectNode node, Route route, ResponseStart start) {
    node.put("id", responseId(route, start.requestId()));
    node.put("model", start.model());
    node.put("created", start.createdEpochSeconds());
  }
}
