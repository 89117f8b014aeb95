package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The JSON bodies of one response, shaped exactly as vLLM serialises them (vllm-wire.md section
 * 3): completions chunks with every field including nulls, chat chunks with only the fields vLLM
 * sets, usage chunks without nulls, and the full non-streaming responses.
 */
final class ResponseShapes {
  private final GenerationEndpoint endpoint;
  private final String id;
  private final long created;
  private final String model;
  private final byte[] midStreamEventPrefix;
  private final byte[] midStreamEventSuffix;

  ResponseShapes(GenerationEndpoint endpoint, String id, long created, String model) {
    this.endpoint = endpoint;
    this.id = id;
    this.created = created;
    this.model = model;
    // A streamed token costs only its own text: the rest of the event is the same for every
    // mid-stream token chunk of this response, so it is serialised once, by Jackson, from the
    // very chunk tokenChunk builds (with a marker text split out).
    String marker = "@@narwhal-token@@";
    String event = "data: " + SimJson.write(tokenChunk(marker, null, null)) + "\n\n";
    String quotedMarker = "\"" + marker + "\"";
    int at = event.lastIndexOf(quotedMarker);
    this.midStreamEventPrefix = event.substring(0, at).getBytes(StandardCharsets.UTF_8);
    this.midStreamEventSuffix =
        event.substring(at + quotedMarker.length()).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The SSE event of a token chunk that is neither the last one nor carries usage: byte for byte
   * {@code data: } + {@link #tokenChunk}{@code (text, null, null)} + blank line, built without a
   * JSON tree.
   */
  ByteBuf midStreamTokenEvent(ByteBufAllocator alloc, String text) {
    byte[] quoted = TokenSequence.quotedJson(text);
    ByteBuf buf =
        alloc.buffer(midStreamEventPrefix.length + quoted.length + 2 + midStreamEventSuffix.length);
    buf.writeBytes(midStreamEventPrefix);
    buf.writeByte('"');
    buf.writeBytes(quoted);
    buf.writeByte('"');
    buf.writeBytes(midStreamEventSuffix);
    return buf;
  }

  /** A chunk carrying one token's text; {@code usage} is set only with continuous usage stats. */
  ObjectNode tokenChunk(String text, @Nullable String finishReason, @Nullable ObjectNode usage) {
    ObjectNode choice = SimJson.object();
    choice.put("index", 0);
    if (endpoint == GenerationEndpoint.CHAT) {
      choice.putObject("delta").put("content", text);
      choice.putNull("logprobs");
      putNullable(choice, "finish_reason", finishReason);
      if (finishReason != null) {
        choice.putNull("stop_reason");
      }
    } else {
      choice.put("text", text);
      choice.putNull("logprobs");
      putNullable(choice, "finish_reason", finishReason);
      choice.putNull("stop_reason");
      choice.putNull("prompt_token_ids");
      choice.putNull("token_ids");
    }
    return chunk(choice, usage);
  }

  /** The chat stream's first chunk: {@code delta {"role":"assistant","content":""}}. */
  ObjectNode roleChunk(@Nullable ObjectNode usage) {
    ObjectNode choice = SimJson.object();
    choice.put("index", 0);
    choice.putObject("delta").put("role", "assistant").put("content", "");
    choice.putNull("logprobs");
    choice.putNull("finish_reason");
    return chunk(choice, usage);
  }

  /** A chunk with no new text (an empty delta), sent while the engine is silent. */
  ObjectNode metadataChunk() {
    ObjectNode choice = SimJson.object();
    choice.put("index", 0);
    if (endpoint == GenerationEndpoint.CHAT) {
      choice.putObject("delta");
      choice.putNull("logprobs");
      choice.putNull("finish_reason");
    } else {
      choice.put("text", "");
      choice.putNull("logprobs");
      choice.putNull("finish_reason");
      choice.putNull("stop_reason");
      choice.putNull("prompt_token_ids");
      choice.putNull("token_ids");
    }
    return chunk(choice, null);
  }

  /** The final usage chunk: {@code choices: []}, no nulls. */
  ObjectNode usageChunk(int promptTokens, int completionTokens) {
    return usageChunk(promptTokens, completionTokens, 0);
  }

  /** The final usage chunk, with {@code prompt_tokens_details.cached_tokens} when above 0. */
  ObjectNode usageChunk(int promptTokens, int completionTokens, int cachedTokens) {
    ObjectNode chunk = header(endpoint.chunkObject());
    chunk.putArray("choices");
    ObjectNode usage = usage(promptTokens, completionTokens);
    if (cachedTokens > 0) {
      usage.putObject("prompt_tokens_details").put("cached_tokens", cachedTokens);
    }
    chunk.set("usage", usage);
    return chunk;
  }

  static ObjectNode usage(int promptTokens, int completionTokens) {
    ObjectNode usage = SimJson.object();
    usage.put("prompt_tokens", promptTokens);
    usage.put("completion_tokens", completionTokens);
    usage.put("total_tokens", promptTokens + completionTokens);
    return usage;
  }

  /** The non-streaming response, all fields including nulls. */
  ObjectNode fullResponse(
      String text,
      @Nullable String finishReason,
      int promptTokens,
      int completionTokens,
      int cachedTokens,
      @Nullable ObjectNode kvTransferParams) {
    ObjectNode response = header(endpoint.responseObject());
    ObjectNode choice = response.putArray("choices").addObject();
    choice.put("index", 0);
    if (endpoint == GenerationEndpoint.CHAT) {
      ObjectNode message = choice.putObject("message");
      message.put("role", "assistant");
      message.put("content", text);
      message.putNull("refusal");
      message.putNull("annotations");
      message.putNull("audio");
      message.putNull("function_call");
      message.putArray("tool_calls");
      message.putNull("reasoning_content");
      choice.putNull("logprobs");
      putNullable(choice, "finish_reason", finishReason);
      choice.putNull("stop_reason");
    } else {
      choice.put("text", text);
      choice.putNull("logprobs");
      putNullable(choice, "finish_reason", finishReason);
      choice.putNull("stop_reason");
      choice.putNull("prompt_logprobs");
    }
    response.putNull("service_tier");
    response.putNull("system_fingerprint");
    ObjectNode usage = response.putObject("usage");
    usage.put("prompt_tokens", promptTokens);
    usage.put("total_tokens", promptTokens + completionTokens);
    usage.put("completion_tokens", completionTokens);
    if (cachedTokens > 0) {
      // vLLM reports it only with --enable-prompt-tokens-details, and only when above 0.
      usage.putObject("prompt_tokens_details").put("cached_tokens", cachedTokens);
    } else {
      usage.putNull("prompt_tokens_details");
    }
    if (endpoint == GenerationEndpoint.CHAT) {
      response.putNull("prompt_logprobs");
    }
    if (kvTransferParams == null) {
      response.putNull("kv_transfer_params");
    } else {
      response.set("kv_transfer_params", kvTransferParams);
    }
    return response;
  }

  /**
   * The mid-stream error event body (the full ErrorInfo, {@code param} null), whose {@code code} is {@code code} as given (a fault may set any
   * integer or a string); {@code type} follows {@code status}, the HTTP status it stands for.
   */
  static ObjectNode errorEvent(int status, JsonNode code, String message) {
    ObjectNode event = ErrorBodies.envelope(status, message, null);
    ((ObjectNode) event.get("error")).set("code", code.deepCopy());
    return event;
  }

  private ObjectNode chunk(ObjectNode choice, @Nullable ObjectNode usage) {
    ObjectNode chunk = header(endpoint.chunkObject());
    ArrayNode choices = chunk.putArray("choices");
    choices.add(choice);
    if (endpoint == GenerationEndpoint.COMPLETIONS) {
      // Completions chunks are serialised with every field, so usage is an explicit null.
      putNullable(chunk, "usage", usage);
    } else if (usage != null) {
      chunk.set("usage", usage);
    }
    return chunk;
  }

  private ObjectNode header(String object) {
    ObjectNode node = SimJson.object();
    node.put("id", id);
    node.put("object", object);
    node.put("created", created);
    node.put("model", model);
    return node;
  }

  private static void putNullable(ObjectNode node, String field, @Nullable String value) {
    if (value == null) {
      node.putNull(field);
    } else {
      node.put(field, value);
    }
  }

  private static void putNullable(ObjectNode node, String field, @Nullable ObjectNode value) {
    if (value == null) {
      node.putNull(field);
    } else {
      node.set(field, value);
    }
  }
}
