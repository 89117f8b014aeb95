package narwhal.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;

/**
 * {@code POST /narwhal/kv/release} with {@code {"remote_request_id": ID}}: a decode engine pulled
 * (or gave up on) the KV this engine leased for prefill {@code ID}, so the engine frees it. The
 * simulator's stand-in for NIXL's side-channel notification; gpu timing mode only (the simple mode
 * holds no KV, so nothing is released). Answers {@code {"released": true}} when the lease was
 * still held.
 */
final class KvReleaseEndpoint {
  static final String PATH = "/narwhal/kv/release";

  private KvReleaseEndpoint() {}

  static FullHttpResponse handle(
      ByteBufAllocator alloc, SimulatedEngineState engine, HttpMethod method, FullHttpRequest request) {
    if (!method.equals(HttpMethod.POST)) {
      return HttpResponses.json(alloc, 405, SimJson.object().put("detail", "Method Not Allowed"));
    }
    JsonNode id;
    try {
      JsonNode body = SimJson.MAPPER.readTree(request.content().toString(StandardCharsets.UTF_8));
      id = body == null ? null : body.get("remote_request_id");
    } catch (JsonProcessingException e) {
      id = null;
    }
    if (id == null || !id.isTextual()) {
      return HttpResponses.json(alloc, 400,
          ErrorBodies.envelope(400, "expected {\"remote_request_id\": \"...\"}", "remote_request_id"));
    }
    boolean released = engine.gpu != null && engine.gpu.releaseLease(id.textValue());
    ObjectNode answer = SimJson.object().put("released", released);
    return HttpResponses.json(alloc, 200, answer);
  }
}
