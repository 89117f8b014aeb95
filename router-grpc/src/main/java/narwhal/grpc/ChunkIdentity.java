package narwhal.grpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import narwhal.api.ResponseStart;
import narwhal.openai.Json;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;

/**
 * Re-stamps each relayed event's {@code chunk_json} with the router's identity, as the HTTP relay
 * does its SSE chunks: {@code id} becomes {@code cmpl-<rid>} / {@code chatcmpl-<rid>}, {@code
 * model} the served model and {@code created} the response's timestamp (replaced where the chunk
 * has them, appended in that order where not). The engine's own ids differ per attempt and leg; a
 * client must see one response whichever engines served it.
 */
final class ChunkIdentity {

  private final String id;
  private final String model;
  private final long created;

  ChunkIdentity(Route route, ResponseStart start) {
    this.id = (route == Route.ROUTE_CHAT_COMPLETIONS ? "chatcmpl-" : "cmpl-") + start.requestId();
    this.model = start.model();
    this.created = start.createdEpochSeconds();
  }

  /** {@code event} with its chunk re-stamped; unchanged when it has no chunk object to stamp. */
  StreamEvent stamp(StreamEvent event) {
    if (event.hasToken() && !event.getToken().getChunkJson().isEmpty()) {
      String json = stamp(event.getToken().getChunkJson());
      return json == null ? event
          : event.toBuilder().setToken(event.getToken().toBuilder().setChunkJson(json)).build();
    }
    if (event.hasMetadata() && !event.getMetadata().getChunkJson().isEmpty()) {
      String json = stamp(event.getMetadata().getChunkJson());
      return json == null ? event
          : event.toBuilder().setMetadata(event.getMetadata().toBuilder().setChunkJson(json)).build();
    }
    return event;
  }

  /** The chunk re-stamped, or null when it is not a JSON object (relayed as the engine sent it). */
  private @org.jspecify.annotations.Nullable String stamp(String chunkJson) {
    JsonNode node;
    try {
      node = Json.mapper().readTree(chunkJson);
    } catch (JsonProcessingException e) {
      return null;
    }
    if (!(node instanceof ObjectNode chunk)) {
      return null;
    }
    chunk.put("id", id);
    chunk.put("model", model);
    chunk.put("created", created);
    return Json.compact(chunk);
  }
}
