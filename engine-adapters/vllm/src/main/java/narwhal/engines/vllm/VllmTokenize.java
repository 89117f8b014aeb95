package narwhal.engines.vllm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import narwhal.openai.Json;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.spi.EngineHttpRequest;
import org.jspecify.annotations.Nullable;

/**
 * vLLM's tokenize route, {@code POST /tokenize} (not under {@code /v1}), as its OpenAI server
 * defines it ({@code TokenizeCompletionRequest}, {@code TokenizeChatRequest}, {@code
 * TokenizeResponse} in vLLM's protocol module):
 *
 * <ul>
 *   <li>completions: {@code {"model", "prompt"}} with the prompt as one string; vLLM's tokenize
 *       takes no list, so a one-string list is sent as its string and any other list shape is not
 *       counted by the engine.
 *   <li>chat: {@code {"model", "messages"}} plus the chat-template fields the client set on its
 *       request ({@link #CHAT_TEMPLATE_FIELDS}), so the count includes the same template tokens the
 *       prefill will compute.
 *   <li>answer: {@code {"count": n, "max_model_len": m, "tokens": [...]}}; only {@code count} is read.
 * </ul>
 *
 * {@code add_special_tokens} is passed through when the client set it: its default differs
 * between the two request kinds exactly as it does between completions and chat generation.
 */
final class VllmTokenize {

  static final String PATH = "/tokenize";

  /** The client's fields that change what the chat template renders, and so the count. */
  static final List<String> CHAT_TEMPLATE_FIELDS = List.of("add_generation_prompt", "continue_final_message",
      "add_special_tokens", "chat_template", "chat_template_kwargs", "tools", "mm_processor_kwargs");

  private VllmTokenize() {}

  static @Nullable EngineHttpRequest request(CompletionRequest request, String backendRequestId) {
    ObjectNode client = OpenAiRequestCodec.toJson(request);
    ObjectNode body = Json.mapper().createObjectNode();
    if (client.has("model")) {
      body.set("model", client.get("model"));
    }
    if (request.hasChat()) {
      body.set("messages", client.get("messages"));
      for (String field : CHAT_TEMPLATE_FIELDS) {
        JsonNode value = client.get(field);
        if (value != null && !value.isNull()) {
          body.set(field, value);
        }
      }
    } else {
      JsonNode prompt = client.get("prompt");
      if (prompt != null && prompt.isArray() && prompt.size() == 1) {
        prompt = prompt.get(0);
      }
      if (prompt == null || !prompt.isTextual()) {
        return null;
      }
      body.set("prompt", prompt);
      JsonNode special = client.get("add_special_tokens");
      if (special != null && special.isBoolean()) {
        body.set("add_special_tokens", special);
      }
    }
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    return new EngineHttpRequest("POST", PATH,
        Map.of("X-Request-Id", backendRequestId, "Content-Type", "application/json"), bytes);
  }

  static long count(String body) {
    JsonNode answer;
    try {
      answer = Json.mapper().readTree(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the tokenize answer is not JSON: " + e.getOriginalMessage());
    }
    JsonNode count = answer == null ? null : answer.get("count");
    if (count == null || !count.canConvertToLong() || !count.isIntegralNumber() || count.longValue() < 0) {
      throw new IllegalArgumentException("the tokenize answer has no non-negative integer count: "
          + (count == null ? "none" : count.toString()));
    }
    return count.longValue();
  }
}
