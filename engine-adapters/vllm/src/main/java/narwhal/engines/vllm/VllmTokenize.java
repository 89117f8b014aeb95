package narwhal.engines.vllm;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
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
 *   <li>answer: {@code {"count": n, "max_model_len": m, "tokens": [...]}}: {@code count} for sizing,
 *       {@code tokens} too when cache-aware placement hashes the prompt's blocks.
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
    byte[] bytes = Json.compactBytes(body);
    return new EngineHttpRequest("POST", PATH,
        Map.of("X-Request-Id", backendRequestId, "Content-Type", "application/json"), bytes);
  }

  /** The most token ids read from one answer: a longer list is refused (no model has such a context). */
  static final int MAX_TOKENS = 1 << 21;

  /**
   * The answer's {@code tokens}, read with the streaming parser into an int array (no tree): the
   * list is as long as the prompt. Null when the answer has no list.
   *
   * @throws IllegalArgumentException when the list is malformed or holds a value that is not a
   *     token id
   */
  static int @Nullable [] tokens(String body) {
    try (JsonParser p = Json.mapper().getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("the tokenize answer is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (!"tokens".equals(field)) {
          p.skipChildren();
          continue;
        }
        if (value != JsonToken.START_ARRAY) {
          throw new IllegalArgumentException("the tokenize answer's tokens is not a list");
        }
        int[] ids = new int[256];
        int n = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
          if (p.currentToken() != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT
              || p.getIntValue() < 0) {
            throw new IllegalArgumentException("the tokenize answer's tokens holds a value that is not a token id: "
                + p.getText());
          }
          if (n == MAX_TOKENS) {
            throw new IllegalArgumentException("the tokenize answer lists more than " + MAX_TOKENS + " tokens");
          }
          if (n == ids.length) {
            ids = java.util.Arrays.copyOf(ids, ids.length * 2);
          }
          ids[n++] = p.getIntValue();
        }
        return java.util.Arrays.copyOf(ids, n);
      }
      return null;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the tokenize answer is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new IllegalArgumentException("the tokenize answer could not be read: " + e.getMessage());
    }
  }

  /**
   * The answer's {@code count}. Read with the streaming parser and stopped as soon as it is found
   * (vLLM writes it first): the {@code tokens} list after it is as long as the prompt, and
   * building a tree of it on the event loop for every request would cost more than the count.
   */
  static long count(String body) {
    try (JsonParser p = Json.mapper().getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("the tokenize answer is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (!"count".equals(field)) {
          p.skipChildren();
          continue;
        }
        if (value != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
            || p.getLongValue() < 0) {
          throw new IllegalArgumentException("the tokenize answer's count is not a non-negative integer: "
              + p.getText());
        }
        return p.getLongValue();
      }
      throw new IllegalArgumentException("the tokenize answer has no count");
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the tokenize answer is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new IllegalArgumentException("the tokenize answer could not be read: " + e.getMessage());
    }
  }
}
