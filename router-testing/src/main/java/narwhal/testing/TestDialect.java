package narwhal.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.openai.Json;
import narwhal.openai.ModelLists;
import narwhal.openai.OpenAiErrorBodies;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.openai.OpenAiStreamDecoder;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.UnreadableHandoffException;
import org.jspecify.annotations.Nullable;

/**
 * A test fixture: the engine dialect the router core's own tests run against, so that the core is
 * tested without any engine adapter module on its class path. No real engine speaks it; it is a
 * complete dialect all the same (the core cannot tell it from vLLM's or SGLang's), and it is found
 * by {@link java.util.ServiceLoader} only where a test module registers it.
 *
 * <p>Its wire is an OpenAI-compatible server whose KV handoff travels as a {@code kv_handoff} object
 * (see {@link TestDialectWire} for examples):
 *
 * <ul>
 *   <li>Prefill: the client's body on the client's endpoint, non-streaming, {@code max_tokens} 1
 *       ({@code max_completion_tokens} 1 when the client sent it), without {@code stream_options},
 *       {@code min_tokens} and {@code min_completion_tokens}, with {@code "kv_handoff":
 *       {"produce":true}}.
 *   <li>Prefill response: an OpenAI completion carrying {@code kv_handoff}, the descriptor (see
 *       {@link TestHandoffJson}).
 *   <li>Decode: the client's body plus the producer's {@code kv_handoff} verbatim; none at all for
 *       same-engine decode.
 *   <li>Each leg carries its backend request id as {@code X-Request-Id}; liveness is {@code GET
 *       /health}, the model list {@code GET /v1/models}.
 * </ul>
 */
public final class TestDialect implements EngineDialect {

  public static final String NAME = "test";
  /** The member holding the handoff, in the prefill request, the prefill response and the decode request. */
  public static final String HANDOFF = "kv_handoff";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public EngineHttpRequest prefillRequest(CompletionRequest request, String backendRequestId) {
    ObjectNode body = OpenAiRequestCodec.toJson(request);
    body.put("stream", false);
    body.remove("stream_options");
    body.remove("min_tokens");
    body.remove("min_completion_tokens");
    body.put("max_tokens", 1);
    if (body.has("max_completion_tokens")) {
      body.put("max_completion_tokens", 1);
    }
    body.putObject(HANDOFF).put("produce", true);
    return post(request.getRoute(), body, backendRequestId);
  }

  /** The handoff object and the {@code usage} counts, from one tree of the answer. */
  @Override
  public narwhal.spi.PrefillAnswer readPrefillAnswer(String body, String connector)
      throws UnreadableHandoffException {
    JsonNode response;
    try {
      response = Json.mapper().readTree(body);
    } catch (JsonProcessingException e) {
      throw new UnreadableHandoffException("the prefill response is not JSON: " + e.getOriginalMessage());
    }
    JsonNode handoff = response == null ? null : response.get(HANDOFF);
    if (handoff == null || handoff.isNull()) {
      throw new UnreadableHandoffException("the prefill response carries no " + HANDOFF);
    }
    if (!handoff.isObject()) {
      throw new UnreadableHandoffException(HANDOFF + " is not an object");
    }
    JsonNode promptTokens = response.path("usage").path("prompt_tokens");
    JsonNode cachedTokens = response.path("usage").path("prompt_tokens_details").path("cached_tokens");
    return new narwhal.spi.PrefillAnswer(TestHandoffJson.read((ObjectNode) handoff, connector),
        promptTokens.canConvertToLong() && promptTokens.isIntegralNumber() ? promptTokens.asLong() : 0,
        cachedTokens.canConvertToLong() && cachedTokens.isIntegralNumber() ? cachedTokens.asLong() : -1);
  }

  @Override
  public String transferParametersJson(KvHandoffDescriptor descriptor) {
    return TestHandoffJson.render(descriptor).toString();
  }

  @Override
  public EngineHttpRequest decodeRequest(
      CompletionRequest request, @Nullable KvHandoffDescriptor handoff, String backendRequestId) {
    ObjectNode body = OpenAiRequestCodec.toJson(request);
    // Same-engine decode sends no handoff at all, whatever the client sent.
    body.remove(HANDOFF);
    if (handoff != null) {
      body.set(HANDOFF, TestHandoffJson.render(handoff));
    }
    return post(request.getRoute(), body, backendRequestId);
  }

  @Override
  public DecodeEventDecoder decodeEventDecoder(Route route) {
    return new OpenAiStreamDecoder(route);
  }

  @Override
  public String errorMessage(String body) {
    return OpenAiErrorBodies.message(body);
  }

  @Override
  public EngineHttpRequest healthRequest() {
    return EngineHttpRequest.get("/health");
  }

  @Override
  public List<String> readModels(String body) {
    return ModelLists.ids(body);
  }

  /** An engine speaking this dialect (the fleet config's default dialect is vLLM's). */
  public static EngineSpec engine(String iid, String url, EngineRole role) {
    return EngineSpec.of(iid, url, role).withDialect(NAME);
  }

  /** The OpenAI endpoint serving {@code route}. */
  public static String endpoint(Route route) {
    return route == Route.ROUTE_CHAT_COMPLETIONS ? "/v1/chat/completions" : "/v1/completions";
  }

  private static EngineHttpRequest post(Route route, ObjectNode body, String backendRequestId) {
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    return new EngineHttpRequest("POST", endpoint(route),
        Map.of("X-Request-Id", backendRequestId, "Content-Type", "application/json"), bytes);
  }
}
