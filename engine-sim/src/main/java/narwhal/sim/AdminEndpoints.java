package narwhal.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulator's own control endpoints, for out-of-process use (the demo, scripts):
 *
 * <ul>
 *   <li>{@code GET /admin/faults}: {@code {"faults":[specs]}}
 *   <li>{@code POST /admin/faults}: replace the plan; body {@code ["spec", ...]}, {@code
 *       {"faults":["spec", ...]}} or {@code "spec"}; counts start afresh
 *   <li>{@code DELETE /admin/faults}: remove every fault
 *   <li>{@code GET /admin/stats}: the {@link SimStats} counters as JSON
 *   <li>{@code GET /admin/framing}: {@code {"stream_framing":"chunked"}} (or {@code "close"})
 *   <li>{@code POST /admin/framing}: switch how streamed responses are framed from the next one
 *       on; body {@code "close"} or {@code {"stream_framing":"close"}} (or {@code chunked}); the
 *       answer is the GET's; anything else is a 400 with an OpenAI-style error envelope
 * </ul>
 */
final class AdminEndpoints {
  private AdminEndpoints() {}

  static FullHttpResponse faults(
      ByteBufAllocator alloc, SimulatedEngineState engine, HttpMethod method, FullHttpRequest request) {
    if (method.equals(HttpMethod.POST)) {
      try {
        engine.setFaults(FaultPlan.of(specsFrom(request.content().toString(StandardCharsets.UTF_8))));
      } catch (IllegalArgumentException e) {
        return HttpResponses.json(alloc, 400, ErrorBodies.envelope(400, e.getMessage(), "faults"));
      }
    } else if (method.equals(HttpMethod.DELETE)) {
      engine.setFaults(FaultPlan.none());
    } else if (!method.equals(HttpMethod.GET)) {
      ObjectNode detail = SimJson.object().put("detail", "Method Not Allowed");
      return HttpResponses.json(alloc, 405, detail);
    }
    ObjectNode body = SimJson.object();
    engine.faults().plan().specs().forEach(body.putArray("faults")::add);
    return HttpResponses.json(alloc, 200, body);
  }

  static FullHttpResponse framing(
      ByteBufAllocator alloc, SimulatedEngineState engine, HttpMethod method, FullHttpRequest request) {
    if (method.equals(HttpMethod.POST)) {
      try {
        engine.setStreamFraming(framingFrom(request.content().toString(StandardCharsets.UTF_8)));
      } catch (IllegalArgumentException e) {
        return HttpResponses.json(alloc, 400, ErrorBodies.envelope(400, e.getMessage(), "stream_framing"));
      }
    } else if (!method.equals(HttpMethod.GET)) {
      ObjectNode detail = SimJson.object().put("detail", "Method Not Allowed");
      return HttpResponses.json(alloc, 405, detail);
    }
    return HttpResponses.json(alloc, 200, SimJson.object().put("stream_framing", engine.streamFraming().wireName()));
  }

  /** {@code "close"} or {@code {"stream_framing": "close"}}, as for the faults' body shapes. */
  private static StreamFraming framingFrom(String text) {
    JsonNode node = bodyValue(text, "stream_framing");
    if (node == null || !node.isTextual()) {
      throw new IllegalArgumentException(
          "expected \"chunked\", \"close\" or {\"stream_framing\": \"chunked\" | \"close\"}");
    }
    return StreamFraming.parse(node.textValue());
  }

  static FullHttpResponse stats(ByteBufAllocator alloc, SimStats stats) {
    ObjectNode body = SimJson.object();
    body.put("requests", stats.requests());
    body.put("prefills", stats.prefills());
    body.put("kv_pulls", stats.kvPulls());
    body.put("active_streams", stats.activeStreams());
    body.put("cancelled_streams", stats.cancelledStreams());
    body.put("active_requests", stats.activeRequests());
    body.put("cancelled_requests", stats.cancelledRequests());
    body.put("waiting_requests", stats.waitingRequests());
    body.put("open_connections", stats.openConnections());
    body.put("total_connections", stats.totalConnections());
    body.put("prompt_tokens", stats.promptTokens());
    body.put("generation_tokens", stats.generationTokens());
    return HttpResponses.json(alloc, 200, body);
  }

  /**
   * An admin body's value: the JSON itself, or its {@code field} member when it is an object (both
   * endpoints take a bare value or the same value wrapped in an object).
   */
  private static JsonNode bodyValue(String text, String field) {
    JsonNode node;
    try {
      node = SimJson.MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("body is not JSON: " + e.getOriginalMessage(), e);
    }
    return node != null && node.isObject() ? node.get(field) : node;
  }

  private static List<String> specsFrom(String text) {
    JsonNode node = bodyValue(text, "faults");
    List<String> specs = new ArrayList<>();
    if (node != null && node.isTextual()) {
      specs.add(node.textValue());
    } else if (node != null && node.isArray()) {
      for (JsonNode spec : node) {
        if (!spec.isTextual()) {
          throw new IllegalArgumentException("each fault must be a spec string, got " + spec);
        }
        specs.add(spec.textValue());
      }
    } else {
      throw new IllegalArgumentException(
          "expected [\"spec\", ...], {\"faults\": [\"spec\", ...]} or \"spec\"");
    }
    return specs;
  }
}
