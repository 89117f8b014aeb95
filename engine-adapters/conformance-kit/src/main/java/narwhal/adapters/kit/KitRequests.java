package narwhal.adapters.kit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import narwhal.api.InvalidRequestException;
import narwhal.openai.Json;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;

/** Client requests as the OpenAI front-end would parse them. */
final class KitRequests {

  static final String PROMPT = "the narwhal conformance kit asks for a few tokens";

  private KitRequests() {}

  static CompletionRequest completion(String model, String prompt, int maxTokens, boolean stream) {
    ObjectNode body = Json.mapper().createObjectNode()
        .put("model", model).put("prompt", prompt).put("max_tokens", maxTokens).put("stream", stream);
    return parse(body, Route.ROUTE_COMPLETIONS);
  }

  static CompletionRequest chat(String model, String prompt, int maxTokens, boolean stream) {
    ObjectNode body = Json.mapper().createObjectNode()
        .put("model", model).put("max_tokens", maxTokens).put("stream", stream);
    body.putArray("messages").addObject().put("role", "user").put("content", prompt);
    return parse(body, Route.ROUTE_CHAT_COMPLETIONS);
  }

  private static CompletionRequest parse(ObjectNode body, Route route) {
    try {
      return OpenAiRequestCodec.parse(body.toString().getBytes(StandardCharsets.UTF_8), route, null);
    } catch (InvalidRequestException e) {
      throw new IllegalStateException("the kit's own request is invalid: " + e.getMessage(), e);
    }
  }
}
