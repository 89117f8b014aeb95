package narwhal.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import narwhal.openai.Json;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.spi.UnreadableHandoffException;

/**
 * {@link TestDialect}'s {@code kv_handoff} object to and from {@link KvHandoffDescriptor}: the
 * descriptor's typed fields under their own names ({@code engine_id}, {@code block_ids}, {@code
 * host}, {@code port}, {@code tp_size}, {@code request_id}); every other member, {@code connector}
 * included, is kept as opaque JSON text and rendered back unchanged, as a real dialect must keep
 * what it does not understand. A {@code connector} member names the producer's connector;
 * without one the producer's configured connector is assumed.
 *
 * <p>As in every dialect, a typed field holds a value only when the descriptor can tell it from
 * "absent" (proto3 strings and lists have no presence), so {@code ""}, {@code []} or a value of
 * another JSON type stays opaque.
 */
final class TestHandoffJson {

  private static final String ENGINE_ID = "engine_id";
  private static final String BLOCK_IDS = "block_ids";
  private static final String HOST = "host";
  private static final String PORT = "port";
  private static final String TP_SIZE = "tp_size";
  private static final String REQUEST_ID = "request_id";
  private static final String CONNECTOR = "connector";
  private static final Set<String> TYPED = Set.of(ENGINE_ID, BLOCK_IDS, HOST, PORT, TP_SIZE, REQUEST_ID);

  private TestHandoffJson() {}

  static KvHandoffDescriptor read(ObjectNode handoff, String configuredConnector) throws UnreadableHandoffException {
    KvHandoffDescriptor.Builder d = KvHandoffDescriptor.newBuilder();
    JsonNode connector = handoff.get(CONNECTOR);
    d.setConnector(connector != null && connector.isTextual() ? connector.asText() : configuredConnector);
    JsonNode engineId = handoff.get(ENGINE_ID);
    if (engineId != null && !engineId.isNull() && !engineId.isTextual()) {
      throw new UnreadableHandoffException(ENGINE_ID + " is not a string: " + engineId);
    }
    JsonNode blocks = handoff.get(BLOCK_IDS);
    if (blocks != null && !blocks.isNull()) {
      if (!blocks.isArray()) {
        throw new UnreadableHandoffException(BLOCK_IDS + " is not a list: " + blocks);
      }
      for (JsonNode b : blocks) {
        if (!b.isIntegralNumber() || !b.canConvertToLong() || b.asLong() < 0) {
          throw new UnreadableHandoffException(BLOCK_IDS + " must be non-negative integers, got " + blocks);
        }
      }
    }
    Iterator<Map.Entry<String, JsonNode>> members = handoff.fields();
    while (members.hasNext()) {
      Map.Entry<String, JsonNode> m = members.next();
      if (isTyped(m.getKey(), m.getValue())) {
        setTyped(d, m.getKey(), m.getValue());
      } else {
        d.putOpaqueFields(m.getKey(), m.getValue().toString());
      }
    }
    return d.build();
  }

  static ObjectNode render(KvHandoffDescriptor d) {
    ObjectNode out = Json.mapper().createObjectNode();
    for (Map.Entry<String, String> f : d.getOpaqueFieldsMap().entrySet()) {
      try {
        out.set(f.getKey(), Json.mapper().readTree(f.getValue()));
      } catch (IOException e) {
        throw new UncheckedIOException("opaque handoff member " + f.getKey() + " is not JSON", e);
      }
    }
    if (!d.getEngineId().isEmpty()) {
      out.put(ENGINE_ID, d.getEngineId());
    }
    if (d.getBlockIdsCount() > 0) {
      ArrayNode blocks = out.putArray(BLOCK_IDS);
      d.getBlockIdsList().forEach(blocks::add);
    }
    if (!d.getHost().isEmpty()) {
      out.put(HOST, d.getHost());
    }
    if (d.hasPort()) {
      out.put(PORT, d.getPort());
    }
    if (d.hasTpSize()) {
      out.put(TP_SIZE, d.getTpSize());
    }
    if (!d.getRemoteRequestId().isEmpty()) {
      out.put(REQUEST_ID, d.getRemoteRequestId());
    }
    return out;
  }

  private static void setTyped(KvHandoffDescriptor.Builder d, String key, JsonNode v) {
    switch (key) {
      case ENGINE_ID -> d.setEngineId(v.asText());
      case BLOCK_IDS -> v.forEach(b -> d.addBlockIds(b.asLong()));
      case HOST -> d.setHost(v.asText());
      case PORT -> d.setPort(v.asInt());
      case TP_SIZE -> d.setTpSize(v.asInt());
      case REQUEST_ID -> d.setRemoteRequestId(v.asText());
      default -> throw new IllegalArgumentException(key);
    }
  }

  /** Whether {@code v}, found under {@code key}, goes to a typed descriptor field rather than opaquely. */
  private static boolean isTyped(String key, JsonNode v) {
    if (!TYPED.contains(key)) {
      return false;
    }
    return switch (key) {
      case BLOCK_IDS -> v.isArray() && !v.isEmpty();
      case PORT, TP_SIZE -> v.isInt();
      default -> v.isTextual() && !v.asText().isEmpty();
    };
  }
}
