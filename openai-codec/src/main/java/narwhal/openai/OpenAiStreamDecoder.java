package narwhal.openai;

import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.MalformedEventException;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import narwhal.openai.CompactJson;
import narwhal.openai.Json;
import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamDone;
import narwhal.proto.v1.StreamError;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.proto.v1.Usage;
import org.jspecify.annotations.Nullable;

/**
 * Reads OpenAI-shaped streaming chunks, as vLLM and SGLang send them on {@code /v1/completions} and
 * {@code /v1/chat/completions}. A chunk is a token when it carries generated output: text
 * (completions), delta content, reasoning or tool calls (chat), or token ids. The chat role chunk,
 * usage chunks, empty deltas and finish-only chunks are metadata: they show the engine is alive
 * without being output. {@code data: [DONE]} ends the stream; an {@code error} object is an error
 * event. Dialects whose engines speak this shape return one from {@link
 * EngineDialect#decodeEventDecoder}; stateless apart from the route, one per stream.
 */
public final class OpenAiStreamDecoder implements DecodeEventDecoder {

  private static final StreamEvent DONE = StreamEvent.newBuilder().setDone(StreamDone.getDefaultInstance()).build();

  private final Route route;

  public OpenAiStreamDecoder(Route route) {
    this.route = route;
  }

  @Override
  public StreamEvent decode(String data) throws MalformedEventException {
    if ("[DONE]".equals(data.trim())) {
      return DONE;
    }
    // Every token passes here: chunks already in canonical compact form (what vLLM and SGLang
    // send for ordinary tokens) are read from a one-pass index instead of a tree, and relayed as
    // the very text that arrived (a tree's toString would give it back unchanged).
    CompactJson index = CompactJson.forThisThread();
    if (index.index(data)) {
      StreamEvent event = decodeIndexed(index);
      if (event != null) {
        return event;
      }
    }
    return decodeWithTree(data);
  }

  /**
   * The event from an indexed chunk, exactly as {@link #decodeWithTree} would build it; null for
   * shapes this path leaves to the tree (errors, and fields of unusual types).
   */
  private @Nullable StreamEvent decodeIndexed(CompactJson index) {
    int root = index.root();
    if (isPresent(index, index.member(root, "error"))) {
      return null;
    }
    int choices = index.member(root, "choices");
    if (choices != CompactJson.NONE && index.kind(choices) != CompactJson.ARRAY) {
      return null;
    }
    String compact = index.text();
    int usageNode = index.member(root, "usage");
    Usage usage = null;
    if (usageNode != CompactJson.NONE && index.kind(usageNode) == CompactJson.OBJECT) {
      long prompt = count(index, index.member(usageNode, "prompt_tokens"));
      long completion = count(index, index.member(usageNode, "completion_tokens"));
      long total = count(index, index.member(usageNode, "total_tokens"));
      if (prompt < 0 || completion < 0 || total < 0) {
        return null;
      }
      usage = Usage.newBuilder().setPromptTokens(prompt).setCompletionTokens(completion).setTotalTokens(total).build();
    }
    int choice = choices == CompactJson.NONE ? CompactJson.NONE : index.first(choices);
    if (choice == CompactJson.NONE) {
      MetadataChunk.Builder m = MetadataChunk.newBuilder().setChunkJson(compact);
      if (usage != null) {
        m.setUsage(usage);
      }
      return StreamEvent.newBuilder().setMetadata(m).build();
    }
    if (index.kind(choice) != CompactJson.OBJECT) {
      return null;
    }
    int indexNode = index.member(choice, "index");
    long choiceIndex = indexNode == CompactJson.NONE ? 0 : index.longValue(indexNode, Long.MIN_VALUE);
    if (choiceIndex < Integer.MIN_VALUE || choiceIndex > Integer.MAX_VALUE) {
      return null;
    }
    int finishNode = index.member(choice, "finish_reason");
    String finish = null;
    if (isPresent(index, finishNode)) {
      if (index.kind(finishNode) != CompactJson.STRING) {
        return null;
      }
      finish = index.string(finishNode);
    }
    int stop = index.member(choice, "stop_reason");
    String stopJson = isPresent(index, stop) ? index.json(stop) : "";
    String text;
    String role = "";
    boolean generated;
    if (route == Route.ROUTE_CHAT_COMPLETIONS) {
      int delta = index.member(choice, "delta");
      text = stringOrEmpty(index, index.member(delta, "content"));
      role = stringOrEmpty(index, index.member(delta, "role"));
      generated = !text.isEmpty()
          || nonEmptyString(index, index.member(delta, "reasoning_content"))
          || nonEmptyString(index, index.member(delta, "reasoning"))
          || nonEmptyArray(index, index.member(delta, "tool_calls"))
          || nonEmptyArray(index, index.member(choice, "token_ids"));
    } else {
      text = stringOrEmpty(index, index.member(choice, "text"));
      generated = !text.isEmpty() || nonEmptyArray(index, index.member(choice, "token_ids"));
    }
    if (generated) {
      TokenDelta.Builder t = TokenDelta.newBuilder()
          .setIndex((int) choiceIndex).setText(text).setStopReasonJson(stopJson).setChunkJson(compact).setRole(role);
      if (finish != null) {
        t.setFinishReason(finish);
      }
      if (usage != null) {
        t.setUsage(usage);
      }
      return StreamEvent.newBuilder().setToken(t).build();
    }
    MetadataChunk.Builder m = MetadataChunk.newBuilder()
        .setIndex((int) choiceIndex).setStopReasonJson(stopJson).setChunkJson(compact).setRole(role);
    if (finish != null) {
      m.setFinishReason(finish);
    }
    if (usage != null) {
      m.setUsage(usage);
    }
    return StreamEvent.newBuilder().setMetadata(m).build();
  }

  private static boolean isPresent(CompactJson index, int node) {
    return node != CompactJson.NONE && index.kind(node) != CompactJson.NULL;
  }

  /** A usage count: 0 when absent, -1 (leave it to the tree) unless a non-negative integer. */
  private static long count(CompactJson index, int node) {
    return node == CompactJson.NONE ? 0 : index.longValue(node, -1);
  }

  private static String stringOrEmpty(CompactJson index, int node) {
    return node != CompactJson.NONE && index.kind(node) == CompactJson.STRING ? index.string(node) : "";
  }

  private static boolean nonEmptyString(CompactJson index, int node) {
    return node != CompactJson.NONE && index.kind(node) == CompactJson.STRING && !index.isEmptyString(node);
  }

  private static boolean nonEmptyArray(CompactJson index, int node) {
    return node != CompactJson.NONE && index.kind(node) == CompactJson.ARRAY && index.first(node) != CompactJson.NONE;
  }

  /** The reference path: any chunk, read into a Jackson tree. */
  StreamEvent decodeWithTree(String data) throws MalformedEventException {
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
    // StreamError.status is an HTTP error status: an integer code outside 400-599 (the engines
    // never send one, but a proxy might) becomes 500, as the spec's stream-termination rule says.
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
