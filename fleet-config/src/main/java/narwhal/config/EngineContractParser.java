package narwhal.config;

import static narwhal.config.NumberRange.POSITIVE;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code engine_contract}. Absent or JSON null means a development fleet (no contract);
 * within the contract every key is optional and JSON null leaves that field unpinned.
 */
final class EngineContractParser {

  private EngineContractParser() {}

  static @Nullable EngineContract contract(ConfigObject top) {
    JsonNode raw = top.raw("engine_contract");
    if (raw == null || raw.isNull()) {
      return null;
    }
    if (!raw.isObject()) {
      top.error("engine_contract", "must be an object or null, got " + JsonPaths.show(raw));
      return null;
    }
    ConfigObject c =
        new ConfigObject((ObjectNode) raw, top.pathOf("engine_contract"), top.context());
    EngineContract contract =
        EngineContract.builder()
            .vllmVersion(c.optionalString("vllm_version"))
            .imageDigest(c.optionalString("image_digest"))
            .nixlVersion(c.optionalString("nixl_version"))
            .connectorVersion(c.optionalString("connector_version"))
            .architecture(c.optionalString("architecture"))
            .dtype(c.optionalString("dtype"))
            .kvHeads(c.optionalInteger("kv_heads", 1))
            .headSize(c.optionalInteger("head_size", 1))
            .layers(c.optionalInteger("layers", 1))
            .attentionBackend(c.optionalString("attention_backend"))
            .kvCacheDtype(c.optionalString("kv_cache_dtype"))
            .blockSize(c.optionalInteger("block_size", 1))
            .kvLayout(c.optionalString("kv_layout"))
            .tensorParallelSize(c.optionalInteger("tensor_parallel_size", 1))
            .useMla(c.optionalBool("use_mla"))
            .connector(c.optionalString("connector"))
            .kvRole(c.choice("kv_role", Choices.KV_ROLES, true))
            .transferMode(c.choice("transfer_mode", Choices.TRANSFER_MODES, true))
            .speculativeConfig(speculativeConfig(c))
            .handshakeCompat(c.optionalString("handshake_compat"))
            .kvLeaseDurationS(c.optionalNumber("kv_lease_duration_s", POSITIVE))
            .build();
    c.finish();
    return contract;
  }

  private static @Nullable Map<String, @Nullable Object> speculativeConfig(
      ConfigObject c) {
    JsonNode raw = c.raw("speculative_config");
    if (raw == null || raw.isNull()) {
      return null;
    }
    if (!raw.isObject()) {
      c.error("speculative_config", "must be an object or null, got " + JsonPaths.show(raw));
      return null;
    }
    return FreeFormJson.toMap(raw);
  }
}
