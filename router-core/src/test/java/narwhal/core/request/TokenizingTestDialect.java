package narwhal.core.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import narwhal.openai.Json;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.UnreadableHandoffException;
import narwhal.testing.TestDialect;
import org.jspecify.annotations.Nullable;

/**
 * The test dialect with a tokenize route: {@code POST /tokenize} carrying the text prompt or the
 * messages, answered {@code {"count": n}}. Everything else is {@link TestDialect}'s.
 */
final class TokenizingTestDialect implements EngineDialect {

  private final TestDialect wire = new TestDialect();

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

  @Override
  public String name() {
    return wire.name();
  }

  @Override
  public EngineHttpRequest prefillRequest(CompletionRequest request, String backendRequestId) {
    return wire.prefillRequest(request, backendRequestId);
  }

  @Override
  public long readPrefillPromptTokens(String body) {
    return wire.readPrefillPromptTokens(body);
  }

  @Override
  public KvHandoffDescriptor readPrefillResponse(String body, String connector) throws UnreadableHandoffException {
    return wire.readPrefillResponse(body, connector);
  }

  @Override
  public String transferParametersJson(KvHandoffDescriptor descriptor) {
    return wire.transferParametersJson(descriptor);
  }

  @Override
  public EngineHttpRequest decodeRequest(
      CompletionRequest request, @Nullable KvHandoffDescriptor handoff, String backendRequestId) {
    return wire.decodeRequest(request, handoff, backendRequestId);
  }

  @Override
  public DecodeEventDecoder decodeEventDecoder(Route route) {
    return wire.decodeEventDecoder(route);
  }

  @Override
  public String errorMessage(String body) {
    return wire.errorMessage(body);
  }

  @Override
  public EngineHttpRequest healthRequest() {
    return wire.healthRequest();
  }

  @Override
  public List<String> readModels(String body) {
    return wire.readModels(body);
  }
}
