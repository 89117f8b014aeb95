package narwhal.engines.vllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import narwhal.engines.spi.UnreadableHandoffException;
import narwhal.openai.Json;
import narwhal.proto.v1.KvHandoffDescriptor;

/**
 * NixlConnector's {@code kv_transfer_params} to and from {@link KvHandoffDescriptor}.
 *
 * <p>The six fields the router checks are mapped to typed fields; every other field ({@code
 * do_remote_prefill}, {@code do_remote_decode}, anything a newer vLLM adds) is kept as opaque JSON
 * text and rendered back unchanged, so the consumer receives the producer's parameters verbatim.
 */
final class NixlDescriptors {

  static final String NIXL = "nixl";
  private static final String ENGINE_ID = "remote_engine_id";
  private static final String BLOCK_IDS = "remote_block_ids";
  private static final String HOST = "remote_host";
  private static final String PORT = "remote_port";
  private static final String TP_SIZE = "tp_size";
  private static final String REQUEST_ID = "remote_request_id";
  /** Not sent by vLLM itself; a connector that names itself is believed over the fleet config. */
  private static final String CONNECTOR = "kv_connector";
  private static final Set<String> TYPED = Set.of(ENGINE_ID, BLOCK_IDS, HOST, PORT, TP_SIZE, REQUEST_ID);

  private NixlDescriptors() {}

  static KvHandoffDescriptor read(ObjectNode params, String configuredConnector)
      throws UnreadableHandoffException {
    KvHandoffDescriptor.Builder d = KvHandoffDescriptor.newBuilder();
    d.setConnector(connectorOf(params, configuredConnector));
    JsonNode engineId = params.get(ENGINE_ID);
    if (engineId != null && engineId.isTextual()) {
      d.setEngineId(engineId.asText());
    } else if (engineId != null && !engineId.isNull()) {
      throw new UnreadableHandoffException(ENGINE_ID + " is not a string: " + engineId);
    }
    JsonNode blocks = params.get(BLOCK_IDS);
    if (blocks != null && !blocks.isNull()) {
      if (!blocks.isArray()) {
        throw new UnreadableHandoffException(BLOCK_IDS + " is not a list: " + blocks);
      }
      for (JsonNode b : blocks) {
        if (!b.isIntegralNumber() || !b.canConvertToLong() || b.asLong() < 0) {
          throw new UnreadableHandoffException(BLOCK_IDS + " must be non-negative integers, got " + blocks);
        }
        d.addBlockIds(b.asLong());
      }
    }
    JsonNode host = params.get(HOST);
    if (host != null && host.isTextual()) {
      d.setHost(host.asText());
    }
    JsonNode port = params.get(PORT);
    if (port != null && port.isInt()) {
      d.setPort(port.asInt());
    }
    JsonNode tp = params.get(TP_SIZE);
    if (tp != null && tp.isInt()) {
      d.setTpSize(tp.asInt());
    }
    JsonNode rid = params.get(REQUEST_ID);
    if (rid != null && rid.isTextual()) {
      d.setRemoteRequestId(rid.asText());
    }
    Iterator<Map.Entry<String, JsonNode>> fields = params.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      // Typed fields of an unexpected JSON type stay opaque so nothing the producer said is lost.
      if (!TYPED.contains(f.getKey()) || !isTypedShape(f.getKey(), f.getValue())) {
        d.putOpaqueFields(f.getKey(), f.getValue().toString());
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
        throw new UncheckedIOException("opaque descriptor field " + f.getKey() + " is not JSON", e);
      }
    }
    if (!d.getEngineId().isEmpty()) {
      out.put(ENGINE_ID, d.getEngineId());
    }
    if (d.getBlockIdsCount() > 0 || out.has(BLOCK_IDS)) {
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

  private static boolean isTypedShape(String key, JsonNode v) {
    switch (key) {
      case BLOCK_IDS:
        return v.isArray();
      case PORT:
      case TP_SIZE:
        return v.isInt();
      default:
        return v.isTextual();
    }
  }

  /**
   * vLLM's NixlConnector does not name itself in its parameters, so the producer's configured
   * connector is assumed; a descriptor that names a connector, or that plainly lacks NIXL's block
   * list while carrying other transfer fields, is taken at its word.
   */
  private static String connectorOf(ObjectNode params, String configured) {
    JsonNode named = params.get(CONNECTOR);
    if (named != null && named.isTextual()) {
      String n = named.asText().toLowerCase(Locale.ROOT);
      return n.startsWith("nixl") ? NIXL : n;
    }
    return configured;
  }
}
