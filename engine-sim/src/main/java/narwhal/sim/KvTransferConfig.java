package narwhal.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * vLLM's {@code --kv-transfer-config} as the simulator reads it: the same JSON object a real
 * engine takes ({@code vllm/config/kv_transfer.py}'s {@code KVTransferConfig}), so one launch line
 * starts either. The simulator moves KV as NixlConnector does, so another connector is refused
 * rather than pretended; the fields that only tune a real transfer are accepted and have no effect.
 *
 * @param connector {@code kv_connector}: {@code NixlConnector}
 * @param role {@code kv_role}: {@code kv_producer}, {@code kv_consumer} or {@code kv_both}
 * @param engineId {@code engine_id}, the id prefill descriptors carry; null for a random one
 */
public record KvTransferConfig(String connector, String role, @Nullable String engineId) {

  /** KVTransferConfig's fields in vLLM's sources, plus the NixlConnector settings its guide documents. */
  private static final Set<String> FIELDS = Set.of("kv_connector", "engine_id", "kv_buffer_device", "kv_buffer_size",
      "kv_role", "kv_rank", "kv_parallel_size", "kv_ip", "kv_port", "kv_connector_extra_config",
      "kv_connector_module_path", "kv_load_failure_policy", "enable_permute_local_kv");
  private static final Set<String> ROLES = Set.of("kv_producer", "kv_consumer", "kv_both");
  static final String NIXL = "NixlConnector";

  /**
   * Parses the flag's value; throws {@link IllegalArgumentException} saying what to change, as
   * vLLM refuses the same mistakes at start (a connector without a role, an unknown role).
   */
  public static KvTransferConfig parse(String json) {
    JsonNode root;
    try {
      root = SimJson.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("--kv-transfer-config must be a JSON object, e.g. "
          + "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}': " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("--kv-transfer-config must be a JSON object, e.g. "
          + "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'");
    }
    List<String> unknown = new ArrayList<>();
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        unknown.add(name);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("--kv-transfer-config: unknown field(s) " + unknown + "; vLLM's are "
          + new TreeSet<>(FIELDS));
    }
    String connector = text(root, "kv_connector");
    if (connector == null) {
      throw new IllegalArgumentException("--kv-transfer-config needs \"kv_connector\": \"" + NIXL + "\"");
    }
    if (!connector.equals(NIXL)) {
      throw new IllegalArgumentException("--kv-transfer-config: the simulator hands KV over as " + NIXL
          + " does; kv_connector " + connector + " is not simulated");
    }
    String role = text(root, "kv_role");
    if (role == null || !ROLES.contains(role)) {
      throw new IllegalArgumentException("--kv-transfer-config: kv_role must be kv_producer, kv_consumer or kv_both"
          + (role == null ? " (vLLM requires one with a connector)" : ", got " + role)
          + "; Narwhal's role controller may move only kv_both engines");
    }
    return new KvTransferConfig(connector, role, text(root, "engine_id"));
  }

  private static @Nullable String text(JsonNode root, String field) {
    JsonNode v = root.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual() || v.textValue().isBlank()) {
      throw new IllegalArgumentException("--kv-transfer-config: " + field + " must be a non-empty string, got " + v);
    }
    return v.textValue();
  }
}
