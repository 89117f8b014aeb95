package narwhal.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import narwhal.core.api.ResponseStart;
import narwhal.openai.Json;
import narwhal.proto.v1.Route;

/**
 * Turns relayed events into SSE frames ({@code data: <json>\n\n}).
 *
 * <p>The engine's chunk is relayed with every field it carried, re-stamped with the router's
 * identity: {@code id} becomes {@code cmpl-<rid>} / {@code chatcmpl-<rid>}, {@code model} the
 * served model and {@code created} the response's timestamp, so a client sees one consistent
 * response however many engine attempts were made. Token-id fields, which the router asks
 * engines for, are removed unless the client asked for them with {@code return_token_ids}. An
 * event without (readable) chunk JSON is synthesised from its typed fields.
 */
final class SseChunkWriter {

  private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);

  private final Route route;
  private final ResponseStart start;
  private final boolean keepTokenIds;

  SseChunkWriter(Route route, ResponseStart start, boolean keepTokenIds) {
    this.route = route;
    this.start = start;
    this.keepTokenIds = keepTokenIds;
  }

  byte[] frame(ChunkView chunk) {
    JsonNode parsed = OpenAiChunks.parseOrNull(chunk.chunkJson());
    ObjectNode json = parsed instanceof ObjectNode ? (ObjectNode) parsed : synthesise(chunk);
    OpenAiChunks.stamp(json, route, start);
    if (!keepTokenIds) {
      removeTokenIds(json);
    }
    return frame(json);
  }

  static byte[] frame(JsonNode json) {
    byte[] body = Json.compactBytes(json);
    byte[] out = new byte[body.length + 8];
    System.arraycopy("data: ".getBytes(StandardCharsets.US_ASCII), 0, out, 0, 6);
    System.arraycopy(body, 0, out, 6, body.length);
    out[out.length - 2] = '\n';
    out[out.length - 1] = '\n';
    return out;
  }

  static byte[] done() {
    return DONE.clone();
  }

  private ObjectNode synthesise(ChunkView chunk) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("object", OpenAiChunks.chunkObject(route));
    ArrayNode choices = json.putArray("choices");
    boolean hasChoice =
        chunk.isToken() || chunk.finishReason() != null || !chunk.role().isEmpty();
    if (hasChoice) {
      ObjectNode choice = choices.addObject().put("index", chunk.index());
      if (route == Route.ROUTE_CHAT_COMPLETIONS) {
        ObjectNode delta = choice.putObject("delta");
        if (!chunk.role().isEmpty()) {
          delta.put("role", chunk.role());
        }
        if (chunk.isToken() || !chunk.role().isEmpty()) {
          delta.put("content", chunk.text());
        }
      } else {
        choice.put("text", chunk.text());
      }
      choice.putNull("logprobs");
      choice.put("finish_reason", chunk.finishReason());
      choice.set("stop_reason", OpenAiChunks.stopReason(chunk.stopReasonJson()));
    }
    if (chunk.usage() != null) {
      json.set("usage", OpenAiChunks.usage(chunk.usage()));
    } else if (route == Route.ROUTE_COMPLETIONS) {
      json.putNull("usage");
    }
    return json;
  }

  private static void removeTokenIds(ObjectNode json) {
    json.remove("prompt_token_ids");
    JsonNode choices = json.get("choices");
    if (choices != null && choices.isArray()) {
      for (JsonNode choice : choices) {
        if (choice instanceof ObjectNode) {
          ((ObjectNode) choice).remove("token_ids");
          ((ObjectNode) choice).remove("prompt_token_ids");
        }
      }
    }
  }
}
