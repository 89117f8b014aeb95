package narwhal.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.io.InputStream;

/**
 * vLLM's tokenize route, {@code POST /tokenize}: {@code {"model", "prompt"}} or {@code {"model",
 * "messages", ...}} answered {@code {"count", "max_model_len", "tokens"}}. The count is the one
 * the simulator's generation reports in its usage for the same prompt or messages (whitespace
 * words, {@link RequestParser}), so a router that counts here prices exactly what the engine
 * will prefill. The token ids are the words' ids ({@link SimVocabulary}), the ones the engine's
 * prefix cache keys its blocks by, so a router hashing them names the blocks the engine caches
 * (a token-id prompt's are its own). SGLang mode has no such route (404, as any unknown path); a dead engine answers 503.
 * Fault plans and directives do not apply to it: it is not a generation.
 */
final class TokenizeEndpoint {

  static final String PATH = "/tokenize";

  private TokenizeEndpoint() {}

  static FullHttpResponse answer(ByteBufAllocator alloc, SimulatedEngineState engine, HttpMethod method,
      FullHttpRequest request) {
    SimDialect dialect = engine.options.dialect();
    if (dialect == SimDialect.SGLANG) {
      ObjectNode detail = SimJson.object();
      detail.put("detail", "Not Found");
      return HttpResponses.json(alloc, 404, detail);
    }
    if (!method.equals(HttpMethod.POST)) {
      ObjectNode detail = SimJson.object();
      detail.put("detail", "Method Not Allowed");
      return HttpResponses.json(alloc, 405, detail);
    }
    if (engine.faults().isDead()) {
      return HttpResponses.json(alloc, 503, ErrorBodies.envelope(dialect, 503, "Engine is dead.", null));
    }
    int count;
    int[] ids;
    try {
      JsonNode body = read(request);
      GenerationEndpoint endpoint = body.has("messages") ? GenerationEndpoint.CHAT : GenerationEndpoint.COMPLETIONS;
      SimRequest parsed = engine.parser.parse(endpoint, body, null);
      count = parsed.promptTokens();
      ids = parsed.tokenIds();
    } catch (SimHttpException e) {
      return HttpResponses.json(alloc, e.status(), ErrorBodies.envelope(dialect, e.status(), e.getMessage(), e.param()));
    }
    ObjectNode answer = SimJson.object();
    answer.put("count", count);
    answer.put("max_model_len", engine.options.maxModelLen());
    ArrayNode tokens = answer.putArray("tokens");
    for (int id : ids) {
      tokens.add(id);
    }
    return HttpResponses.json(alloc, 200, answer);
  }

  private static JsonNode read(FullHttpRequest request) {
    if (!request.content().isReadable()) {
      throw SimHttpException.badRequest("A JSON request body is required.");
    }
    try (InputStream in = new ByteBufInputStream(request.content().duplicate())) {
      JsonNode node = SimJson.MAPPER.readTree(in);
      if (node == null || !node.isObject()) {
        throw SimHttpException.badRequest("Expected a JSON object as the request body.");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw SimHttpException.badRequest("JSON decode error: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw SimHttpException.badRequest("JSON decode error: " + e.getMessage());
    }
  }
}
