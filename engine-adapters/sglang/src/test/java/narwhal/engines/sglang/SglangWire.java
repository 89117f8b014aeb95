package narwhal.engines.sglang;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.api.InvalidRequestException;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;

/** SGLang wire text and JSON helpers for tests. */
final class SglangWire {

  /** Big integers stay exact (a room near 2^63 must not round through a double). */
  private static final ObjectMapper PLAIN =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

  private SglangWire() {}

  static JsonNode tree(String json) {
    try {
      return PLAIN.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode tree(byte[] json) {
    return tree(new String(json, StandardCharsets.UTF_8));
  }

  static CompletionRequest completions(String json) {
    return parse(json, Route.ROUTE_COMPLETIONS);
  }

  static CompletionRequest chat(String json) {
    return parse(json, Route.ROUTE_CHAT_COMPLETIONS);
  }

  private static CompletionRequest parse(String json, Route route) {
    try {
      return OpenAiRequestCodec.parse(json.getBytes(StandardCharsets.UTF_8), route, null);
    } catch (InvalidRequestException e) {
      throw new AssertionError("test request rejected: " + e.getMessage(), e);
    }
  }

  /** A prefill engine at {@code url} speaking sglang with {@code options} as dialect_options. */
  static EngineSpec producer(String url, Map<String, Object> options) {
    return EngineSpec.of("p0", URI.create(url), EngineRole.PREFILL)
        .withDialect(SglangDialect.NAME)
        .withDialectOptions(options);
  }

  /** SGLang's /v1/completions stream chunk (OpenAI shape; SGLang omits vLLM's extra fields). */
  static String completionToken(String text) {
    return "{\"id\":\"5f1c\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"text\":\"" + text + "\",\"logprobs\":null,\"finish_reason\":null,"
        + "\"matched_stop\":null}],\"usage\":null}";
  }

  static String chatContent(String text) {
    return "{\"id\":\"5f1c\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"delta\":{\"role\":null,\"content\":\"" + text + "\","
        + "\"reasoning_content\":null,\"tool_calls\":null},\"logprobs\":null,\"finish_reason\":null,"
        + "\"matched_stop\":null}],\"usage\":null}";
  }

  static String chatFinish(String reason) {
    return "{\"id\":\"5f1c\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"delta\":{\"role\":null,\"content\":null},\"logprobs\":null,"
        + "\"finish_reason\":\"" + reason + "\",\"matched_stop\":2}],\"usage\":null}";
  }

  static String usage(int prompt, int completion) {
    return "{\"id\":\"5f1c\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[],\"usage\":{\"prompt_tokens\":" + prompt + ",\"completion_tokens\":" + completion
        + ",\"total_tokens\":" + (prompt + completion) + "}}";
  }
}
