package narwhal.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import narwhal.api.InvalidRequestException;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;

/**
 * OpenAI-compatible wire text as engines stream it (completion and chat chunks, usage, error
 * bodies), client requests parsed as the front-ends parse them, and JSON helpers. Shared by every
 * dialect that speaks this wire, so the core's tests and each adapter's tests script engines alike.
 */
public final class OpenAiWire {

  /** A plain mapper (doubles, not BigDecimal) so both sides of a comparison read numbers alike. */
  private static final ObjectMapper PLAIN = new ObjectMapper();

  private OpenAiWire() {}

  public static JsonNode tree(String json) {
    try {
      return PLAIN.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static JsonNode tree(byte[] json) {
    try {
      return PLAIN.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static CompletionRequest completions(String json) {
    return parse(json, Route.ROUTE_COMPLETIONS);
  }

  public static CompletionRequest chat(String json) {
    return parse(json, Route.ROUTE_CHAT_COMPLETIONS);
  }

  public static CompletionRequest parse(String json, Route route) {
    try {
      return OpenAiRequestCodec.parse(json.getBytes(StandardCharsets.UTF_8), route, null);
    } catch (InvalidRequestException e) {
      throw new AssertionError("test request rejected: " + e.getMessage(), e);
    }
  }

  public static String completionToken(String text) {
    return "{\"id\":\"cmpl-b2-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"text\":\"" + text + "\",\"logprobs\":null,\"finish_reason\":null,"
        + "\"stop_reason\":null,\"prompt_token_ids\":null,\"token_ids\":null}],\"usage\":null}";
  }

  public static String completionFinish(String text, String reason) {
    return "{\"id\":\"cmpl-b2-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"text\":\"" + text + "\",\"logprobs\":null,\"finish_reason\":\"" + reason
        + "\",\"stop_reason\":null}],\"usage\":null}";
  }

  public static String chatRole() {
    return "{\"id\":\"chatcmpl-b2\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
        + "\"finish_reason\":null}]}";
  }

  public static String chatContent(String text) {
    return "{\"id\":\"chatcmpl-b2\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text + "\"},\"logprobs\":null,"
        + "\"finish_reason\":null}]}";
  }

  public static String chatFinish(String reason) {
    return "{\"id\":\"chatcmpl-b2\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"logprobs\":null,\"finish_reason\":\""
        + reason + "\",\"stop_reason\":null}]}";
  }

  public static String usage(int prompt, int completion) {
    return "{\"id\":\"cmpl-b2-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\","
        + "\"choices\":[],\"usage\":{\"prompt_tokens\":" + prompt + ",\"completion_tokens\":" + completion
        + ",\"total_tokens\":" + (prompt + completion) + "}}";
  }

  /** An error object inside a 200 event stream; {@code code} is JSON text (a number or a string). */
  public static String streamError(Object code) {
    return "{\"error\":{\"message\":\"boom\",\"type\":\"InternalServerError\",\"param\":null,\"code\":"
        + code + "}}";
  }

  public static String errorBody(int status, String message) {
    return "{\"error\":{\"message\":\"" + message + "\",\"type\":\"X\",\"param\":null,\"code\":" + status + "}}";
  }
}
