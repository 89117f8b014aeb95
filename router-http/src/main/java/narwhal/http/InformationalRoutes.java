package narwhal.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;
import narwhal.api.FrontEndMetrics;
import narwhal.api.ClientErrors;
import narwhal.api.CompletionService;
import narwhal.openai.Json;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * The answers to the routes that read no body and start no completion: the model list, liveness,
 * readiness, the metrics scrape and the state document. Each is built whole from what the core
 * reports at that moment; none of them is admitted or journalled.
 */
final class InformationalRoutes {

  private final CompletionService service;
  private final @Nullable FrontEndMetrics metrics;
  private final long startedEpochSeconds;

  InformationalRoutes(CompletionService service, @Nullable FrontEndMetrics metrics, long startedEpochSeconds) {
    this.service = service;
    this.metrics = metrics;
    this.startedEpochSeconds = startedEpochSeconds;
  }

  /**
   * The whole answer to {@code endpoint} at {@code path} (decoded); {@code loop} is the
   * connection's, for the state document.
   */
  FullHttpResponse answer(Endpoint endpoint, String path, Scheduler loop) {
    ObjectNode body = Json.mapper().createObjectNode();
    switch (endpoint) {
      case MODELS:
        body.put("object", "list");
        model(body.putArray("data").addObject());
        return Responses.json(HttpResponseStatus.OK, body);
      case MODEL:
        // OpenAI's GET /v1/models/{model}: the model object, or 404 model_not_found as a
        // completion naming another model gets. An id may hold slashes (org/name).
        String id = path.substring(Endpoint.MODEL.path.length());
        return id.equals(service.model())
            ? Responses.json(HttpResponseStatus.OK, model(body))
            : Responses.error(ClientErrors.modelNotFound(id, service.model()), null);
      case HEALTH:
        return Responses.json(HttpResponseStatus.OK, body.put("status", "ok"));
      case METRICS:
        return metrics();
      case READY:
        String notReady = service.notReadyReason();
        return notReady == null
            ? Responses.json(HttpResponseStatus.OK, body.put("status", "ready"))
            : Responses.json(HttpResponseStatus.SERVICE_UNAVAILABLE,
                body.put("status", "not ready").put("reason", notReady));
      case STATE:
        Map<String, Object> state = service.stateDocument(loop);
        return state == null
            ? Responses.error(Responses.notFound("GET", Endpoint.STATE.path), null)
            : Responses.json(HttpResponseStatus.OK, Json.mapper().valueToTree(state));
      default:
        throw new IllegalArgumentException("not informational: " + endpoint);
    }
  }

  private ObjectNode model(ObjectNode node) {
    return node.put("id", service.model())
        .put("object", "model")
        .put("created", startedEpochSeconds)
        .put("owned_by", "narwhal");
  }

  private FullHttpResponse metrics() {
    if (metrics == null) {
      return Responses.error(Responses.notFound("GET", Endpoint.METRICS.path), null);
    }
    FullHttpResponse response = Responses.json(HttpResponseStatus.OK, metrics.scrape());
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, metrics.scrapeContentType());
    return response;
  }
}
