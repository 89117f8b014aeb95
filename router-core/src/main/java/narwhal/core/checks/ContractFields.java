package narwhal.core.checks;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import narwhal.config.EngineContract;
import narwhal.openai.Json;
import org.jspecify.annotations.Nullable;

/**
 * Compares a pinned {@link EngineContract} with an engine's attestation document. Both use the
 * fleet file's {@code engine_contract} key names; only the fields the contract pins are compared,
 * and keys the document adds are ignored.
 */
public final class ContractFields {

  /** Numbers equal by value (8 and 8.0), text equal to the text of a number ("2" and 2). */
  private static final Comparator<JsonNode> LENIENT = ContractFields::compareNodes;

  private ContractFields() {}

  /** The fields {@code contract} pins (non-null), as JSON values keyed by their fleet-file name. */
  public static Map<String, JsonNode> pinned(EngineContract contract) {
    Map<String, @Nullable Object> fields = new LinkedHashMap<>();
    fields.put("vllm_version", contract.vllmVersion());
    fields.put("image_digest", contract.imageDigest());
    fields.put("nixl_version", contract.nixlVersion());
    fields.put("connector_version", contract.connectorVersion());
    fields.put("architecture", contract.architecture());
    fields.put("dtype", contract.dtype());
    fields.put("kv_heads", contract.kvHeads());
    fields.put("head_size", contract.headSize());
    fields.put("layers", contract.layers());
    fields.put("attention_backend", contract.attentionBackend());
    fields.put("kv_cache_dtype", contract.kvCacheDtype());
    fields.put("block_size", contract.blockSize());
    fields.put("kv_layout", contract.kvLayout());
    fields.put("tensor_parallel_size", contract.tensorParallelSize());
    fields.put("use_mla", contract.useMla());
    fields.put("connector", contract.connector());
    fields.put("kv_role", contract.kvRole());
    fields.put("transfer_mode", contract.transferMode() == null ? null : contract.transferMode().configName());
    fields.put("speculative_config", contract.speculativeConfig());
    fields.put("handshake_compat", contract.handshakeCompat());
    fields.put("kv_lease_duration_s", contract.kvLeaseDurationS());
    Map<String, JsonNode> pinned = new LinkedHashMap<>();
    fields.forEach((key, value) -> {
      if (value != null) {
        pinned.put(key, Json.mapper().valueToTree(value));
      }
    });
    return pinned;
  }

  /**
   * Every pinned field the document does not match, as {@code field: pinned X, engine reports Y}
   * (Y is {@code nothing} when the document lacks the field); empty when all match.
   */
  public static List<String> mismatches(EngineContract contract, JsonNode attestation) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : pinned(contract).entrySet()) {
      JsonNode reported = attestation.get(e.getKey());
      if (reported == null || !e.getValue().equals(LENIENT, reported)) {
        out.add(e.getKey() + ": pinned " + Json.compact(e.getValue()) + ", engine reports "
            + (reported == null ? "nothing" : Json.compact(reported)));
      }
    }
    return out;
  }

  private static int compareNodes(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue());
    }
    // Sidecars differ in whether versions are text or numbers ("2" vs 2): compare the text.
    if (a.isValueNode() && b.isValueNode() && (a.isTextual() || b.isTextual()) && !a.isNull() && !b.isNull()) {
      return a.asText().equals(b.asText()) ? 0 : 1;
    }
    return a.equals(b) ? 0 : 1;
  }
}
