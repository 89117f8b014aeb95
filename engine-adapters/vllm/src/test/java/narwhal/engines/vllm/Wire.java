package narwhal.engines.vllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import narwhal.api.InvalidRequestException;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;

/** vLLM wire text as /work/shared/reference/vllm-wire.md shows it, and JSON helpers for tests. */
final class Wire {

  /** A plain mapper (doubles, not BigDecimal) so both sides of a comparison read numbers alike. */
  private static final ObjectMapper PLAIN = new ObjectMapper();

  /** What a vLLM NixlConnector producer returns, plus a field a newer vLLM might add. */
  static final String PRODUCER_PARAMS = "{\"do_remote_prefill\":true,\"do_remote_decode\":false,"
      + "\"remote_block_ids\":[4,5,6],\"remote_engine_id\":\"7f3c1b2a-engine-p\","
      + "\"remote_request_id\":\"cmpl-b1-0-1a2b3c4d\",\"remote_host\":\"10.0.0.7\","
      + "\"remote_port\":5600,\"tp_size\":1,\"future_field\":{\"x\":[1,null],\"y\":\"z\"}}";

  private Wire() {}

  static JsonNode tree(String json) {
    try {
      return PLAIN.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode tree(byte[] json) {
    try {
      return PLAIN.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static CompletionRequest completions(String json) {
    return parse(json, Route.ROUTE_COMPLETIONS);
  }

  static CompletionRequest chat(String json) {
    return parse(json, Route.ROUTE_CHAT_COMPLETIONS);
  }

  static CompletionRequest parse(String json, Route route) {
    try {
      return OpenAiRequestCodec.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), route, null);
    } catch (InvalidRequestException e) {
      throw new AssertionError("test request rejected: " + e.getMessage(), e);
    }
  }

  /** A non-streaming completions response carrying {@code kvParams} (JSON text, may be "null"). */
  static String prefillResponse(String kvParams) {
    return "{\"id\":\"cmpl-b1-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"text\":\" the\",\"logprobs\":null,\"finish_reason\":\"length\","
        + "\"stop_reason\":null,\"prompt_logprobs\":null}],\"service_tier\":null,\"system_fingerprint\":null,"
        + "\"usage\":{\"prompt_tokens\":5,\"total_tokens\":6,\"completion_tokens\":1,"
        + "\"prompt_tokens_details\":null},\"kv_transfer_params\":" + kvParams + "}";
  }

  /** A producer's answer whose descriptor names {@code engineId}. */
  static String prefillResponseFrom(String engineId) {
    return prefillResponse(PRODUCER_PARAMS.replace("7f3c1b2a-engine-p", engineId));
  }

  static String completionToken(String text) {
    return "{\"id\":\"cmpl-b2-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"text\":\"" + text + "\",\"logprobs\":null,\"finish_reason\":null,"
        + "\"stop_reason\":null,\"prompt_token_ids\":null,\"token_ids\":null}],\"usage\":null}";
  }

  static String completionFinish(String text, String reason) {
    return "{\"id\":\"cmpl-b2-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"text\":\"" + text + "\",\"logprobs\":null,\"finish_reason\":\"" + reason
        + "\",\"stop_reason\":null}],\"usage\":null}";
  }

  static String chatRole() {
    return "{\"id\":\"chatcmpl-b2\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
        + "\"finish_reason\":null}]}";
  }

  static String chatContent(String text) {
    return "{\"id\":\"chatcmpl-b2\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text + "\"},\"logprobs\":null,"
        + "\"finish_reason\":null}]}";
  }

  static String chatFinish(String reason) {
    return "{\"id\":\"chatcmpl-b2\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"logprobs\":null,\"finish_reason\":\""
        + reason + "\",\"stop_reason\":null}]}";
  }

  static String usage(int prompt, int completion) {
    return "{\"id\":\"cmpl-b2-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[],\"usage\":{\"prompt_tokens\":" + prompt + ",\"completion_tokens\":" + completion
        + ",\"total_tokens\":" + (prompt + completion) + "}}";
  }

  static String streamError(Object code) {
    return "{\"error\":{\"message\":\"boom\",\"type\":\"InternalServerError\",\"param\":null,\"code\":"
        + code + "}}";
  }

  static String errorBody(int status, String message) {
    return "{\"error\":{\"message\":\"" + message + "\",\"type\":\"X\",\"param\":null,\"code\":" + status + "}}";
  }
}
