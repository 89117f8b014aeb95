package narwhal.core.checks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import narwhal.config.EngineContract;
import narwhal.config.FleetConfigException;
import narwhal.config.FleetFileParser;
import narwhal.config.TransferMode;
import narwhal.openai.Json;
import org.junit.jupiter.api.Test;

/** The contract comparison: which fields count, in which spelling, and what counts as equal. */
class ContractFieldsTest {

  private static final String FULL_CONTRACT = "{\"vllm_version\":\"0.11.0\",\"image_digest\":\"sha256:ab\","
      + "\"nixl_version\":\"0.6.0\",\"connector_version\":\"2\",\"architecture\":\"LlamaForCausalLM\","
      + "\"dtype\":\"bfloat16\",\"kv_heads\":8,\"head_size\":128,\"layers\":32,\"attention_backend\":\"FLASH_ATTN\","
      + "\"kv_cache_dtype\":\"auto\",\"block_size\":16,\"kv_layout\":\"HND\",\"tensor_parallel_size\":1,"
      + "\"use_mla\":false,\"connector\":\"NixlConnector\",\"kv_role\":\"kv_both\",\"transfer_mode\":\"pull\","
      + "\"speculative_config\":{\"method\":\"ngram\",\"num_speculative_tokens\":3},"
      + "\"handshake_compat\":\"h1\",\"kv_lease_duration_s\":30}";

  private static JsonNode json(String text) {
    try {
      return Json.mapper().readTree(text);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static EngineContract parsed(String contract) {
    String fleet = "{\"schema\":\"narwhal.fleet\",\"schema_version\":1,\"model\":\"m\","
        + "\"slo\":{\"ttft_s\":1,\"tpot_s\":0.1},\"engines\":[{\"iid\":\"a\",\"url\":\"http://127.0.0.1:1\","
        + "\"role\":\"both\"}],\"engine_contract\":" + contract + "}";
    try {
      return FleetFileParser.parse(fleet, name -> null, Set.of("vllm")).engineContract();
    } catch (FleetConfigException e) {
      throw new AssertionError(String.join("\n", e.errors()), e);
    }
  }

  @Test
  void pinned_everyFieldOfAFullContract_usesTheFleetFileKeys() {
    Map<String, JsonNode> pinned = ContractFields.pinned(parsed(FULL_CONTRACT));

    assertThat(pinned.keySet()).containsExactlyElementsOf(() -> json(FULL_CONTRACT).fieldNames());
  }

  @Test
  void mismatches_theSameDocument_matchesEveryField() {
    assertThat(ContractFields.mismatches(parsed(FULL_CONTRACT), json(FULL_CONTRACT))).isEmpty();
  }

  @Test
  void pinned_unpinnedFieldsAreLeftOut() {
    EngineContract contract = EngineContract.builder().dtype("bfloat16").transferMode(TransferMode.PUSH).build();

    assertThat(ContractFields.pinned(contract)).containsOnlyKeys("dtype", "transfer_mode");
    assertThat(ContractFields.pinned(contract).get("transfer_mode").asText()).isEqualTo("push");
  }

  @Test
  void mismatches_numbersByValueAndVersionsAsTextOrNumber() {
    EngineContract contract = EngineContract.builder()
        .kvLeaseDurationS(30.0).connectorVersion("2").kvHeads(8).build();

    assertThat(ContractFields.mismatches(contract,
        json("{\"kv_lease_duration_s\":30,\"connector_version\":2,\"kv_heads\":8.0}"))).isEmpty();
  }

  @Test
  void mismatches_eachDifferenceIsOneLine() {
    EngineContract contract = parsed(FULL_CONTRACT);
    ObjectNode doc = (ObjectNode) json(FULL_CONTRACT);
    doc.put("use_mla", true);
    doc.remove("layers");
    ((ObjectNode) doc.get("speculative_config")).put("num_speculative_tokens", 4);
    doc.putNull("dtype");

    assertThat(ContractFields.mismatches(contract, doc)).containsExactly(
        "dtype: pinned \"bfloat16\", engine reports null",
        "layers: pinned 32, engine reports nothing",
        "use_mla: pinned false, engine reports true",
        "speculative_config: pinned {\"method\":\"ngram\",\"num_speculative_tokens\":3}, engine reports "
            + "{\"method\":\"ngram\",\"num_speculative_tokens\":4}");
  }

  @Test
  void mismatches_textIsNotLooselyEqualToABoolean() {
    EngineContract contract = EngineContract.builder().useMla(false).build();

    assertThat(ContractFields.mismatches(contract, json("{\"use_mla\":\"no\"}"))).hasSize(1);
  }
}
