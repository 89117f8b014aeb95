package narwhal.engines.vllm;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import narwhal.engines.spi.DecodeEventDecoder;
import narwhal.engines.spi.MalformedEventException;
import narwhal.openai.Json;
import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamDone;
import narwhal.proto.v1.StreamError;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.proto.v1.Usage;

/**
 * Reads vLLM's OpenAI streaming chunks. A chunk is a token when it carries generated output: text
 * (completions), delta content, reasoning or tool calls (chat), or token ids. The chat role chunk,
 * usage chunks, empty deltas and finish-only chunks are metadata: they show the engine is alive
 * without being output.
 */
final class VllmStreamDecoder implements DecodeEventDecoder {

  private static final StreamEvent DONE = StreamEvent.newBuilder().setDone(StreamDone.getDefaultInstance()).build();

  private final Route route;

  VllmStreamDecoder(Route route) {
    this.route = route;
  }

  @Override
  public StreamEvent decode(String data) throws MalformedEventException {
    if ("[DONE]".equals(data.trim())) {
      return DONE;
    }
    JsonNode chunk;
    try {
      chunk = Json.mapper().readTree(data);
    } catch (IOException e) {
      throw new MalformedEventException("not JSON: " + abbreviate(data), e);
    }
    if (chunk == null || !chunk.isObject()) {
      throw new MalformedEventException("not a JSON object: " + abbreviate(data));
    }
    JsonNode error = chunk.get("error");
    if (error != null && !error.isNull()) {
      return StreamEvent.newBuilder().setError(readError(error)).build();
    }
    JsonNode choices = chunk.get("choices");
    if (choices != null && !choices.isArray()) {
      throw new MalformedEventException("'choices' is not a list: " + abbreviate(data));
    }
    JsonNode choice = choices == null || choices.isEmpty() ? null : choices.get(0);
    String compact = chunk.toString();
    Usage usage = readUsage(chunk.get("usage"));
    if (choice == null) {
      MetadataChunk.Builder m = MetadataChunk.newBuilder().setChunkJson(compact);
      if (usage != null) {
        m.setUsage(usage);
      }
      return StreamEvent.newBuilder().setMetadata(m).build();
    }
    int index = choice.path("index").asInt(0);
    String finish = textOrNull(choice.get("finish_reason"));
    JsonNode stop = choice.get("stop_reason");
    String stopJson = stop == null || stop.isNull() ? "" : stop.toString();
    String text;
    String role = "";
    boolean generated;
    if (route == Route.ROUTE_CHAT_COMPLETIONS) {
      JsonNode delta = choice.path("delta");
      text = delta.path("content").isTextual() ? delta.get("content").asText() : "";
      role = delta.path("role").isTextual() ? delta.get("role").asText() : "";
      generated = !text.isEmpty()
          || nonEmptyText(delta.get("reasoning_content"))
          || nonEmptyText(delta.get("reasoning"))
          || nonEmptyArray(delta.get("tool_calls"))
          || nonEmptyArray(choice.get("token_ids"));
    } else {
      text = choice.path("text").isTextual() ? choice.get("text").asText() : "";
      generated = !text.isEmpty() || nonEmptyArray(choice.get("token_ids"));
    }
    if (generated) {
      TokenDelta.Builder t = TokenDelta.newBuilder()
          .setIndex(index).setText(text).setStopReasonJson(stopJson).setChunkJson(compact).setRole(role);
      if (finish != null) {
        t.setFinishReason(finish);
      }
      if (usage != null) {
        t.setUsage(usage);
      }
      return StreamEvent.newBuilder().setToken(t).build();
    }
    MetadataChunk.Builder m = MetadataChunk.newBuilder()
        .setIndex(index).setStopReasonJson(stopJson).setChunkJson(compact).setRole(role);
    if (finish != null) {
      m.setFinishReason(finish);
    }
    if (usage != null) {
      m.setUsage(usage);
    }
    return StreamEvent.newBuilder().setMetadata(m).build();
  }

  private static StreamError readError(JsonNode error) {
    StreamError.Builder e = StreamError.newBuilder();
    if (error.isTextual()) {
      return e.setStatus(500).setMessage(error.asText()).setType("InternalServerError").build();
    }
    JsonNode code = error.get("code");
    // StreamError.status is an HTTP error status: an integer code outside 400-599 (vLLM never
    // sends one, but a proxy might) becomes 500, as the spec's stream-termination rule says.
    int status = code != null && code.isInt() && code.asInt() >= 400 && code.asInt() <= 599 ? code.asInt() : 500;
    e.setStatus(status);
    e.setMessage(error.path("message").asText(""));
    e.setType(error.path("type").asText(""));
    if (code != null && !code.isNull()) {
      e.setCode(code.asText());
    }
    return e.build();
  }

  private static Usage readUsage(JsonNode usage) {
    if (usage == null || !usage.isObject()) {
      return null;
    }
    return Usage.newBuilder()
        .setPromptTokens(usage.path("prompt_tokens").asLong(0))
        .setCompletionTokens(usage.path("completion_tokens").asLong(0))
        .setTotalTokens(usage.path("total_tokens").asLong(0))
        .build();
  }

  private static String textOrNull(JsonNode n) {
    return n == null || n.isNull() ? null : n.asText();
  }

  private static boolean nonEmptyText(JsonNode n) {
    return n != null && n.isTextual() && !n.asText().isEmpty();
  }

  private static boolean nonEmptyArray(JsonNode n) {
    return n != null && n.isArray() && !n.isEmpty();
  }

  private static String abbreviate(String s) {
    return s.length() > 120 ? s.substring(0, 120) + "..." : s;
  }
}
