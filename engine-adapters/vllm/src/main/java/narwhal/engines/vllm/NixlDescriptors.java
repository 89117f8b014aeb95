package narwhal.engines.vllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import narwhal.spi.UnreadableHandoffException;
import narwhal.openai.Json;
import narwhal.proto.v1.KvHandoffDescriptor;

/**
 * NixlConnector's {@code kv_transfer_params} to and from {@link KvHandoffDescriptor}.
 *
 * <p>The six fields the router checks are mapped to typed fields; every other field ({@code
 * do_remote_prefill}, {@code do_remote_decode}, anything a newer vLLM adds) is kept as opaque JSON
 * text and rendered back unchanged, so the consumer receives the producer's parameters verbatim.
 *
 * <p>A typed field holds a value only when the proto can tell it from "absent": proto3 strings and
 * repeated fields have no presence, so a producer's {@code ""} or {@code []} (like a null or a
 * value of another JSON type) stays opaque. Otherwise it would be read as "not sent" and dropped
 * from the decode leg's parameters.
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
    if (engineId != null && !engineId.isNull() && !engineId.isTextual()) {
      throw new UnreadableHandoffException(ENGINE_ID + " is not a string: " + engineId);
    }
    if (isTyped(ENGINE_ID, engineId)) {
      d.setEngineId(engineId.asText());
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
    if (isTyped(HOST, host)) {
      d.setHost(host.asText());
    }
    JsonNode port = params.get(PORT);
    if (isTyped(PORT, port)) {
      d.setPort(port.asInt());
    }
    JsonNode tp = params.get(TP_SIZE);
    if (isTyped(TP_SIZE, tp)) {
      d.setTpSize(tp.asInt());
    }
    JsonNode rid = params.get(REQUEST_ID);
    if (isTyped(REQUEST_ID, rid)) {
      d.setRemoteRequestId(rid.asText());
    }
    Iterator<Map.Entry<String, JsonNode>> fields = params.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      // What no typed field holds stays opaque, so nothing the producer said is lost.
      if (!isTyped(f.getKey(), f.getValue())) {
        d.putOpaqueFields(f.getKey(), jsonText(f.getValue()));
      }
    }
    return d.build();
  }

  static ObjectNode render(KvHandoffDescriptor d) {
    ObjectNode out = Json.mapper().createObjectNode();
    for (Map.Entry<String, String> f : d.getOpaqueFieldsMap().entrySet()) {
      out.set(f.getKey(), jsonValue(f.getKey(), f.getValue()));
    }
    if (!d.getEngineId().isEmpty()) {
      out.put(ENGINE_ID, d.getEngineId());
    }
    // Typed values are never empty (see isTyped): an opaque "", [] or null under a typed key is
    // the producer's own value and is left as it is.
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

  /**
   * An opaque value's JSON text. NIXL's opaque fields are mostly the two {@code do_remote_*}
   * flags, whose text needs no serializer (a node's {@code toString()} starts a whole Jackson
   * writer, on every prefill answer's way to the decode leg).
   */
  private static String jsonText(JsonNode v) {
    if (v.isBoolean() || v.isNull()) {
      return v.asText(); // "true", "false", "null"
    }
    return v.toString();
  }

  /** The inverse of {@link #jsonText}: the flags without a parser, anything else parsed (and so checked). */
  private static JsonNode jsonValue(String key, String text) {
    switch (text) {
      case "true":
        return BooleanNode.TRUE;
      case "false":
        return BooleanNode.FALSE;
      case "null":
        return NullNode.getInstance();
      default:
        try {
          return Json.mapper().readTree(text);
        } catch (IOException e) {
          throw new UncheckedIOException("opaque descriptor field " + key + " is not JSON", e);
        }
    }
  }

  /** Whether {@code v}, found under {@code key}, is held in a typed descriptor field rather than opaquely. */
  private static boolean isTyped(String key, JsonNode v) {
    if (v == null || !TYPED.contains(key)) {
      return false;
    }
    switch (key) {
      case BLOCK_IDS:
        return v.isArray() && !v.isEmpty();
      case PORT:
      case TP_SIZE:
        return v.isInt();
      default:
        return v.isTextual() && !v.asText().isEmpty();
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
