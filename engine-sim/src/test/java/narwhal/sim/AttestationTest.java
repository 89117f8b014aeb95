package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** {@code GET /narwhal/attestation}: the simulator acting as its own attestation sidecar. */
class AttestationTest {

  @Test
  void attestation_defaults_reportTheExampleContractInFleetFileSpelling() {
    try (SimEngine engine = SimEngine.start(SimOptions.builder().engineId("e-7").tpSize(2).build())) {
      HttpResponse<String> response = SimHttp.get(engine, "/narwhal/attestation");

      assertThat(response.statusCode()).isEqualTo(200);
      JsonNode doc = SimHttp.json(response.body());
      assertThat(doc.get("schema").asText()).isEqualTo("narwhal.attestation");
      assertThat(doc.get("schema_version").asInt()).isEqualTo(1);
      assertThat(doc.get("engine_id").asText()).isEqualTo("e-7");
      assertThat(doc.get("vllm_version").asText()).isEqualTo("0.11.0");
      assertThat(doc.get("architecture").asText()).isEqualTo("LlamaForCausalLM");
      assertThat(doc.get("kv_heads").asInt()).isEqualTo(8);
      assertThat(doc.get("use_mla").asBoolean()).isFalse();
      assertThat(doc.get("transfer_mode").asText()).isEqualTo("pull");
      assertThat(doc.get("tensor_parallel_size").asInt()).isEqualTo(2);
      assertThat(doc.get("kv_lease_duration_s").asInt()).isEqualTo(30);
      assertThat(doc.get("speculative_config").isNull()).isTrue();
    }
  }

  @Test
  void attestation_overrides_changeOneFieldAndDropAnother() {
    SimOptions options = SimOptions.builder().attest("vllm_version", "0.10.2").withoutAttest("layers").build();
    try (SimEngine engine = SimEngine.start(options)) {
      JsonNode doc = SimHttp.json(SimHttp.get(engine, "/narwhal/attestation").body());

      assertThat(doc.get("vllm_version").asText()).isEqualTo("0.10.2");
      assertThat(doc.has("layers")).isFalse();
      assertThat(doc.get("dtype").asText()).isEqualTo("bfloat16");
    }
  }

  @Test
  void attestation_answersEvenWhileTheEngineIsDead() {
    try (SimEngine engine = SimEngine.start(SimOptions.builder().faults("dead").build())) {
      assertThat(SimHttp.get(engine, "/health").statusCode()).isEqualTo(503);
      assertThat(SimHttp.get(engine, "/narwhal/attestation").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void attestation_toBuilder_keepsTheFields() {
    SimOptions options = SimOptions.builder().attest("dtype", "float16").build();

    assertThat(options.toBuilder().port(0).build().attestation()).isEqualTo(options.attestation());
  }

  @Test
  void cli_attest_parsesJsonValuesTextAndDrops() {
    SimOptions options = SimCli.parse(new String[] {
        "--attest", "vllm_version=0.10.2", "--attest=kv_heads=4", "--attest", "use_mla=true",
        "--attest", "speculative_config={\"method\":\"ngram\"}", "--attest", "layers="});

    assertThat(options.attestation())
        .containsEntry("vllm_version", "0.10.2")
        .containsEntry("kv_heads", 4)
        .containsEntry("use_mla", true)
        .doesNotContainKey("layers");
    assertThat(options.attestation().get("speculative_config")).isEqualTo(java.util.Map.of("method", "ngram"));
  }

  @Test
  void cli_attest_withoutEquals_isRejected() {
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--attest", "vllm_version"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid value for option '--attest' (KEY=VALUE): expected KEY=VALUE");
  }

  @Test
  void processGeneration_isStableWithinAProcessStart_andNewAfterARestart() {
    String first;
    int port;
    try (SimEngine engine = SimEngine.start(SimOptions.builder().build())) {
      first = SimHttp.json(SimHttp.get(engine, "/narwhal/attestation").body()).get("process_generation").asText();
      String again = SimHttp.json(SimHttp.get(engine, "/narwhal/attestation").body()).get("process_generation").asText();
      assertThat(first).matches("[0-9a-f]{16}").isEqualTo(again).isEqualTo(engine.processGeneration());
      port = engine.port();
    }
    // The same engine restarted on the same port: another process, another generation.
    try (SimEngine restarted = SimEngine.start(SimOptions.builder().port(port).build())) {
      String after = SimHttp.json(SimHttp.get(restarted, "/narwhal/attestation").body()).get("process_generation").asText();
      assertThat(after).matches("[0-9a-f]{16}").isNotEqualTo(first);
    }
  }
}
