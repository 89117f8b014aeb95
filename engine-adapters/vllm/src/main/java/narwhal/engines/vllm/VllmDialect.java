package narwhal.engines.vllm;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Map;
import narwhal.openai.ModelLists;
import narwhal.openai.AnswerUsage;
import narwhal.spi.DecodeDraft;
import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.PrefillAnswer;
import narwhal.openai.OpenAiErrorBodies;
import narwhal.openai.OpenAiStreamDecoder;
import narwhal.spi.UnreadableHandoffException;
import narwhal.openai.Json;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * vLLM's OpenAI-compatible server with the NixlConnector, as the vLLM toy proxy and llm-d's
 * sidecar drive it (see docs/adapters.md and the wire reference):
 *
 * <ul>
 *   <li>Prefill: the client's body on the client's endpoint, non-streaming, {@code max_tokens} 1
 *       ({@code max_completion_tokens} 1 when the client sent it), without {@code stream_options},
 *       {@code min_tokens} and {@code min_completion_tokens}, with the six-key {@code
 *       kv_transfer_params} asking for a remote decode. The token it generates is discarded.
 *   <li>Decode: the client's body (prompt or messages, output limit, sampling settings, stream
 *       settings) plus the producer's {@code kv_transfer_params} verbatim.
 *   <li>Prompt counting: {@code POST /tokenize} with the prompt or the messages (and the client's
 *       chat-template fields); the answer's {@code count} is the exact prompt length.
 *   <li>Each leg carries its own backend request id as {@code X-Request-Id} (the router derives it
 *       from its rid: {@code <rid>-p1}, {@code <rid>-d1}; vLLM builds its internal request id from
 *       it), and the router adds {@code traceparent}/{@code tracestate}.
 * </ul>
 */
public final class VllmDialect implements EngineDialect {

  public static final String NAME = "vllm";

  private static final byte[] TRANSFER_PARAMS_MEMBER = Json.memberName("kv_transfer_params");

  /** Reads one value of a longer document, so what follows it is not "trailing" to this reader. */
  private static final ObjectReader SUBTREE =
      Json.mapper().reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

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
    ObjectNode kv = body.putObject("kv_transfer_params");
    kv.put("do_remote_decode", true);
    kv.put("do_remote_prefill", false);
    kv.putNull("remote_engine_id");
    kv.putNull("remote_block_ids");
    kv.putNull("remote_host");
    kv.putNull("remote_port");
    return post(request.getRoute(), body, backendRequestId);
  }

  /**
   * The descriptor, {@code usage.prompt_tokens} (as every OpenAI-compatible answer carries it) and
   * {@code usage.prompt_tokens_details.cached_tokens}, read in one pass.
   */
  @Override
  public PrefillAnswer readPrefillAnswer(String body, String connector) throws UnreadableHandoffException {
    ParsedAnswer answer = parse(body);
    JsonNode params = answer.params();
    if (params == null || params.isNull()) {
      throw new UnreadableHandoffException("the prefill response carries no kv_transfer_params "
          + "(did the engine run with a KV connector and stop at max_tokens=1?)");
    }
    if (!params.isObject()) {
      throw new UnreadableHandoffException("kv_transfer_params is not an object");
    }
    return new PrefillAnswer(NixlDescriptors.read((ObjectNode) params, connector), answer.usage().promptTokens(),
        answer.usage().cachedTokens());
  }

  /**
   * The answer's top-level {@code kv_transfer_params} (or null) and its {@code usage} counts:
   * {@code prompt_tokens} (or 0) and {@code prompt_tokens_details.cached_tokens} (or -1; vLLM
   * reports it only with {@code --enable-prompt-tokens-details}, and only above 0).
   */
  private record ParsedAnswer(@Nullable JsonNode params, AnswerUsage.Counts usage) {}

  /**
   * The answer's top-level {@code kv_transfer_params} and {@code usage} counts, in one pass
   * of the streaming parser, so that only the parameters become a tree: the rest of the answer
   * ({@code choices}, …) is only checked to be well-formed JSON, as a whole-body tree would have
   * checked it, and skipped (a repeated key is refused by the mapper's parser either way).
   */
  private static ParsedAnswer parse(String body) throws UnreadableHandoffException {
    try (JsonParser p = Json.mapper().getFactory().createParser(body)) {
      JsonNode params = null;
      AnswerUsage.Counts usage = AnswerUsage.Counts.NONE;
      if (p.nextToken() == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          JsonToken value = p.nextToken();
          if ("kv_transfer_params".equals(name)) {
            params = SUBTREE.readTree(p);
          } else if ("usage".equals(name) && value == JsonToken.START_OBJECT) {
            usage = AnswerUsage.countsOf(p);
          } else {
            p.skipChildren();
          }
        }
      } else {
        p.skipChildren();
      }
      if (p.nextToken() != null) {
        throw new UnreadableHandoffException("the prefill response is not JSON: content after its end");
      }
      return new ParsedAnswer(params, usage);
    } catch (IOException e) {
      String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
      throw new UnreadableHandoffException("the prefill response is not JSON: " + why);
    }
  }

  @Override
  public String transferParametersJson(KvHandoffDescriptor descriptor) {
    return NixlDescriptors.render(descriptor).toString();
  }

  @Override
  public EngineHttpRequest decodeRequest(
      CompletionRequest request, @Nullable KvHandoffDescriptor handoff, String backendRequestId) {
    return draftDecodeRequest(request).complete(handoff, backendRequestId);
  }

  /**
   * The client's body without any {@code kv_transfer_params} of its own, rendered once; the
   * producer's parameters are spliced in as its last member when the handoff arrives.
   */
  @Override
  public DecodeDraft draftDecodeRequest(CompletionRequest request) {
    ObjectNode body = OpenAiRequestCodec.toJson(request);
    // Same-engine decode sends no transfer parameters at all, whatever the client sent.
    body.remove("kv_transfer_params");
    byte[] withoutHandoff = Json.compactBytes(body);
    Route route = request.getRoute();
    return (handoff, backendRequestId) -> post(route,
        handoff == null ? withoutHandoff : Json.withLastMember(
            withoutHandoff, TRANSFER_PARAMS_MEMBER, Json.compactBytes(NixlDescriptors.render(handoff))),
        backendRequestId);
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

  /** {@code POST /tokenize} (see {@link VllmTokenize}); null for a list prompt vLLM cannot count. */
  @Override
  public @Nullable EngineHttpRequest tokenizeRequest(CompletionRequest request, String backendRequestId) {
    return VllmTokenize.request(request, backendRequestId);
  }

  @Override
  public int @org.jspecify.annotations.Nullable [] readTokenIds(String body) {
    return VllmTokenize.tokens(body);
  }

  @Override
  public long readTokenCount(String body) {
    return VllmTokenize.count(body);
  }

  static String endpoint(Route route) {
    return route == Route.ROUTE_CHAT_COMPLETIONS ? "/v1/chat/completions" : "/v1/completions";
  }

  private static EngineHttpRequest post(Route route, ObjectNode body, String backendRequestId) {
    return post(route, Json.compactBytes(body), backendRequestId);
  }

  private static EngineHttpRequest post(Route route, byte[] bytes, String backendRequestId) {
    return new EngineHttpRequest("POST", endpoint(route),
        Map.of("X-Request-Id", backendRequestId, "Content-Type", "application/json"), bytes);
  }

  @Override
  public java.util.List<String> readModels(String body) {
    return ModelLists.ids(body);
  }
}
