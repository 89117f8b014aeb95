package narwhal.core.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import narwhal.openai.Json;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.spi.EngineHttpRequest;
import narwhal.testing.ForwardingDialect;
import narwhal.testing.TestDialect;
import org.jspecify.annotations.Nullable;

/**
 * The test dialect with a tokenize route: {@code POST /tokenize} carrying the text prompt or the
 * messages, answered {@code {"count": n}}. Everything else is {@link TestDialect}'s.
 */
final class TokenizingTestDialect extends ForwardingDialect {

  TokenizingTestDialect() {
    super(new TestDialect());
  }

  @Override
  public @Nullable EngineHttpRequest tokenizeRequest(CompletionRequest request, String backendRequestId) {
    ObjectNode client = OpenAiRequestCodec.toJson(request);
    ObjectNode body = Json.mapper().createObjectNode();
    if (request.hasChat()) {
      body.set("messages", client.get("messages"));
    } else if (request.getPrompt().hasText()) {
      body.set("prompt", client.get("prompt"));
    } else {
      return null;
    }
    return new EngineHttpRequest("POST", "/tokenize", Map.of("X-Request-Id", backendRequestId),
        body.toString().getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public long readTokenCount(String body) {
    try {
      JsonNode count = Json.mapper().readTree(body).get("count");
      if (count == null || !count.isIntegralNumber()) {
        throw new IllegalArgumentException("no count in " + body);
      }
      return count.longValue();
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + body);
    }
  }
}
