package narwhal.sim;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /narwhal/attestation}: the document an attestation sidecar serves next to a real
 * engine, here answered by the simulator itself. It reports the engine's compatibility fields
 * under the fleet file's {@code engine_contract} key names, so a router pinning a contract can
 * compare them one by one.
 *
 * <p>The defaults describe the engine the production-style example in docs/configuration.md pins
 * (a Llama 3.1 8B on vLLM 0.11 with the NixlConnector), so a simulated fleet passes that contract
 * unless a test changes a field with {@link SimOptions.Builder#attest}.
 */
public final class Attestation {

  /** The document's path on the simulator. */
  public static final String PATH = "/narwhal/attestation";

  /** The value of the document's {@code schema} key. */
  public static final String SCHEMA = "narwhal.attestation";

  private Attestation() {}

  /**
   * The default fields, in the fleet file's spelling; {@code tensor_parallel_size} follows the
   * engine's {@code tp_size}.
   */
  public static Map<String, @Nullable Object> defaults(int tpSize) {
    Map<String, @Nullable Object> m = new LinkedHashMap<>();
    m.put("vllm_version", "0.11.0");
    m.put("image_digest", "sha256:narwhal-sim");
    m.put("nixl_version", "0.6.0");
    m.put("connector_version", "2");
    m.put("architecture", "LlamaForCausalLM");
    m.put("dtype", "bfloat16");
    m.put("kv_heads", 8);
    m.put("head_size", 128);
    m.put("layers", 32);
    m.put("attention_backend", "FLASH_ATTN");
    m.put("kv_cache_dtype", "auto");
    m.put("block_size", 16);
    m.put("kv_layout", "HND");
    m.put("tensor_parallel_size", tpSize);
    m.put("use_mla", false);
    m.put("connector", "NixlConnector");
    m.put("kv_role", "kv_both");
    m.put("transfer_mode", "pull");
    m.put("speculative_config", null);
    m.put("handshake_compat", "narwhal-sim-1");
    m.put("kv_lease_duration_s", 30);
    return m;
  }

  /** Reads a {@code --attest} value: JSON when it parses as JSON, else the text itself. */
  static @Nullable Object parseValue(String text) {
    try {
      // Trailing tokens must fail, or 0.11.0 would read as the number 0.11.
      JsonNode node = SimJson.MAPPER.reader()
          .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .readTree(text);
      if (node != null && !node.isMissingNode()) {
        return SimJson.MAPPER.convertValue(node, Object.class);
      }
    } catch (java.io.IOException e) {
      // Not JSON (e.g. 0.11.0 or FLASH_ATTN): a bare string, the common case on a command line.
    }
    return text;
  }

  /**
   * The document: schema, identity, {@code process_generation} (unique to this engine's start, so
   * a router can bind what it measured to this process and notice a restart), then the attested
   * fields.
   */
  static ObjectNode body(SimOptions options, String processGeneration) {
    ObjectNode doc = SimJson.object();
    doc.put("schema", SCHEMA);
    doc.put("schema_version", 1);
    doc.put("engine_id", options.engineId());
    doc.put("served_model", options.model());
    doc.put("process_generation", processGeneration);
    for (Map.Entry<String, @Nullable Object> e : options.attestation().entrySet()) {
      doc.set(e.getKey(), SimJson.MAPPER.valueToTree(e.getValue()));
    }
    return doc;
  }

  static Map<String, @Nullable Object> freeze(Map<String, @Nullable Object> fields) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(fields));
  }
}
