package narwhal.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

class WorkloadTest {

  private final ObjectMapper json = new ObjectMapper();
  private final Workload w = new Workload("narwhal-sim", 12, 5, 3, 0);

  @Test
  void prefillBody_isOneNonStreamedTokenAskingForRemoteDecode() throws Exception {
    JsonNode body = json.readTree(w.prefillBody(1));
    assertThat(body.get("max_tokens").asInt()).isEqualTo(1);
    assertThat(body.get("stream").asBoolean()).isFalse();
    assertThat(body.get("kv_transfer_params").get("do_remote_decode").asBoolean()).isTrue();
    assertThat(body.get("kv_transfer_params").size()).isEqualTo(6);
    assertThat(body.get("prompt").asText().split(" ")).hasSize(12);
  }

  @Test
  void decodeBody_isTheClientRequestPlusTheDescriptorVerbatim() throws Exception {
    String kv = "{\"do_remote_prefill\":true,\"remote_block_ids\":[0],\"remote_engine_id\":\"p\"}";
    JsonNode body = json.readTree(w.decodeBody(2, kv));
    JsonNode client = json.readTree(w.clientBody(2));
    assertThat(body.get("prompt")).isEqualTo(client.get("prompt"));
    assertThat(body.get("max_tokens").asInt()).isEqualTo(5);
    assertThat(body.get("stream").asBoolean()).isTrue();
    assertThat(body.get("kv_transfer_params")).isEqualTo(json.readTree(kv));
    assertThat(client.has("kv_transfer_params")).isFalse();
  }

  @Test
  void expected_isTheSimulatorsOracleForThatPrompt() throws Exception {
    String prompt = json.readTree(w.clientBody(0)).get("prompt").asText();
    assertThat(new String(w.expected(0), StandardCharsets.UTF_8)).isEqualTo(SimEngine.expectedText(0, prompt, 5));
    assertThat(w.expected(0)).isNotEqualTo(w.expected(1));
  }
}
