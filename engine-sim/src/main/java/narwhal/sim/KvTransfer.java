package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * NixlConnector {@code kv_transfer_params}: the descriptor a prefill returns and the check a
 * decode applies before "pulling" KV (vllm-wire.md section 1).
 */
final class KvTransfer {
  /** vLLM's default KV block size in tokens. */
  static final int BLOCK_SIZE = 16;
  /** Not sent by NixlConnector; a descriptor from another connector may name itself here. */
  static final String CONNECTOR = "kv_connector";
  /**
   * Gpu timing mode only, not NixlConnector's: where the decode tells this producer it pulled the
   * KV, so the producer frees it (NIXL sends that notification over its side channel).
   */
  static final String RELEASE_URL = "narwhal_sim_release_url";

  private KvTransfer() {}

  /** KV blocks holding a prompt: one per 16 tokens, at least one. */
  static int blocksFor(int promptTokens) {
    return Math.max(1, (promptTokens + BLOCK_SIZE - 1) / BLOCK_SIZE);
  }

  /**
   * True when a decode request's params let NIXL pull: {@code do_remote_prefill} true, non-empty
   * {@code remote_block_ids} of non-negative ints, and {@code remote_engine_id}, {@code
   * remote_request_id}, {@code remote_host}, {@code remote_port} present, and no {@code
   * kv_connector} naming a connector other than NIXL. Anything else is ignored and the prompt
   * recomputed, as vLLM does.
   */
  static boolean isUsablePull(@Nullable JsonNode params) {
    if (params == null || !params.isObject()) {
      return false;
    }
    if (!params.path("do_remote_prefill").asBoolean(false)) {
      return false;
    }
    JsonNode blocks = params.path("remote_block_ids");
    if (!blocks.isArray() || blocks.isEmpty()) {
      return false;
    }
    for (JsonNode block : blocks) {
      if (!block.canConvertToInt() || !block.isIntegralNumber() || block.intValue() < 0) {
        return false;
      }
    }
    JsonNode connector = params.get(CONNECTOR);
    if (connector != null && connector.isTextual()
        && !connector.textValue().toLowerCase(Locale.ROOT).startsWith("nixl")) {
      return false; // Another connector's KV: NIXL has nothing to pull.
    }
    return hasText(params, "remote_engine_id")
        && hasText(params, "remote_request_id")
        && hasText(params, "remote_host")
        && params.path("remote_port").canConvertToInt()
        && params.path("remote_port").isIntegralNumber();
  }

  private static boolean hasText(JsonNode params, String field) {
    JsonNode value = params.get(field);
    return value != null && value.isTextual() && !value.textValue().isEmpty();
  }

  /**
   * A usable pull's producer, when its descriptor says where to report the pull (a gpu-mode
   * simulator made it); null otherwise.
   */
  static @Nullable ProducerKv producerOf(@Nullable JsonNode params) {
    if (params == null || !params.isObject()) {
      return null;
    }
    JsonNode url = params.get(RELEASE_URL);
    JsonNode id = params.get("remote_request_id");
    if (url == null || !url.isTextual() || !url.textValue().startsWith("http://") || id == null || !id.isTextual()) {
      return null;
    }
    return new ProducerKv(url.textValue(), id.textValue());
  }

  /**
   * The descriptor a finished prefill returns, spoiled as {@code fault} says (null for {@link
   * KvFault#NONE}), then carrying the engine's release URL (gpu timing mode), the engine's extra
   * fields and the request's, in that order (a later field replaces an earlier one of the same
   * name, NixlConnector's own included).
   */
  static @Nullable ObjectNode prefillDescriptor(
      SimOptions options,
      String internalRequestId,
      int promptTokens,
      IntSupplier nextBlockId,
      @Nullable KvFault fault,
      Map<String, JsonNode> requestExtraFields,
      @Nullable String releaseUrl) {
    if (fault == KvFault.NONE) {
      return null;
    }
    ObjectNode params = SimJson.object();
    if (fault == KvFault.WRONG_CONNECTOR) {
      // A complete, valid NIXL descriptor that names another connector: only a router comparing
      // the producer's connector with the consumer's can tell it is unusable.
      params.put(CONNECTOR, "P2pNcclConnector");
    }
    params.put("do_remote_prefill", true);
    params.put("do_remote_decode", false);
    ArrayNode blocks = params.putArray("remote_block_ids");
    if (fault == KvFault.BAD_BLOCK_IDS) {
      blocks.add("a");
      blocks.add(-1);
    } else {
      int count = blocksFor(promptTokens);
      for (int i = 0; i < count; i++) {
        blocks.add(nextBlockId.getAsInt());
      }
    }
    if (fault != KvFault.MISSING_ENGINE_ID) {
      params.put("remote_engine_id", options.engineId());
    }
    params.put("remote_request_id", internalRequestId);
    params.put("remote_host", options.kvHost());
    params.put("remote_port", options.kvPort());
    params.put("tp_size", options.tpSize());
    if (releaseUrl != null) {
      params.put(RELEASE_URL, releaseUrl);
    }
    options.kvExtraFields().forEach((name, value) -> params.set(name, value.deepCopy()));
    requestExtraFields.forEach((name, value) -> params.set(name, value.deepCopy()));
    return params;
  }
}
