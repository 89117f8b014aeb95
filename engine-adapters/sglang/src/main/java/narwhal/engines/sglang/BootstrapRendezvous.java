package narwhal.engines.sglang;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import narwhal.config.EngineSpec;
import narwhal.openai.Json;
import narwhal.proto.v1.KvHandoffDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * SGLang's rendezvous ({@code bootstrap_host}, {@code bootstrap_port}, {@code bootstrap_room}) as a
 * {@link KvHandoffDescriptor}: host and port in the typed fields, the producer's fleet iid as its
 * engine identity, and the room as the opaque field {@code bootstrap_room} holding a JSON integer,
 * so the journal and logs show exactly what both legs carried.
 */
final class BootstrapRendezvous {

  static final String HOST = "bootstrap_host";
  static final String PORT = "bootstrap_port";
  static final String ROOM = "bootstrap_room";

  private BootstrapRendezvous() {}

  static KvHandoffDescriptor plan(EngineSpec producer, long room) {
    if (room < 0) {
      throw new IllegalArgumentException("bootstrap room must be non-negative, got " + room);
    }
    return KvHandoffDescriptor.newBuilder()
        .setConnector(producer.connector())
        .setEngineId(producer.iid())
        .setHost(BootstrapOptions.host(producer))
        .setPort(BootstrapOptions.port(producer))
        .putOpaqueFields(ROOM, Long.toString(room))
        .build();
  }

  /** Why the consumer cannot use {@code d}, or null; the spec's descriptor checks for SGLang. */
  static @Nullable String problem(KvHandoffDescriptor d, String consumerConnector) {
    if (d.getHost().isBlank()) {
      return "the SGLang rendezvous names no bootstrap host";
    }
    if (!d.hasPort() || d.getPort() < 1 || d.getPort() > 65535) {
      return "the SGLang rendezvous has no usable bootstrap port"
          + (d.hasPort() ? " (" + d.getPort() + ")" : "");
    }
    String room = d.getOpaqueFieldsOrDefault(ROOM, null);
    if (room == null) {
      return "the SGLang rendezvous has no bootstrap room";
    }
    if (room(room) == null) {
      return "the SGLang rendezvous's bootstrap room is not an integer in [0, 2^63-1]: " + room;
    }
    if (!d.getConnector().equals(consumerConnector)) {
      return "the rendezvous uses connector '" + d.getConnector()
          + "' but the decode engine uses '" + consumerConnector + "'";
    }
    return null;
  }

  /** The three fields both legs carry, added to (or replacing those in) {@code body}. */
  static void addTo(ObjectNode body, KvHandoffDescriptor d) {
    body.put(HOST, d.getHost());
    if (d.hasPort()) {
      body.put(PORT, d.getPort());
    } else {
      // SGLang then uses its own default port; say so explicitly rather than leave it out.
      body.putNull(PORT);
    }
    String room = d.getOpaqueFieldsOrDefault(ROOM, null);
    Long parsed = room == null ? null : room(room);
    if (parsed != null) {
      body.put(ROOM, parsed.longValue());
    } else if (room != null) {
      body.set(ROOM, verbatim(room));
    }
  }

  static void removeFrom(ObjectNode body) {
    body.remove(HOST);
    body.remove(PORT);
    body.remove(ROOM);
  }

  static ObjectNode render(KvHandoffDescriptor d) {
    ObjectNode out = Json.mapper().createObjectNode();
    addTo(out, d);
    return out;
  }

  /** The room as a long when {@code text} is a non-negative JSON integer that fits, else null. */
  private static @Nullable Long room(String text) {
    try {
      long room = Long.parseLong(text.trim());
      return room >= 0 ? room : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static JsonNode verbatim(String json) {
    try {
      return Json.mapper().readTree(json);
    } catch (IOException e) {
      return Json.mapper().getNodeFactory().textNode(json);
    }
  }
}
