package narwhal.sim;

import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A launch line written for vLLM or SGLang starts the simulator as written: the engine serves the
 * model under the name the line gives, puts vLLM's side channel into its descriptors, asks for the
 * key vLLM would ask for, and attests what the line configured. Contradictions are refused.
 */
class EngineShapedFlagsTest {

  private static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";
  private static final String NIXL_BOTH = "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}";

  private static SimOptions parse(Map<String, String> env, String... args) {
    return SimCli.parse(args, env::get);
  }

  @Test
  void vllmServeLine_servesItsModel_withTheSideChannelAndKeyFromTheEnvironment() {
    SimOptions options = parse(Map.of("VLLM_NIXL_SIDE_CHANNEL_HOST", "10.0.0.7", "VLLM_NIXL_SIDE_CHANNEL_PORT", "5601",
            "VLLM_API_KEY", "sekret"),
        MODEL, "--host", "127.0.0.1", "--port", "0", "--enable-prefix-caching", "--kv-transfer-config", NIXL_BOTH);

    assertThat(options.model()).isEqualTo(MODEL);
    assertThat(options.kvHost()).isEqualTo("10.0.0.7");
    assertThat(options.kvPort()).isEqualTo(5601);
    assertThat(options.apiKey()).isEqualTo("sekret");
    assertThat(options.attestation()).containsEntry("kv_role", "kv_both").containsEntry("connector", "NixlConnector");
    assertThat(options.dialect()).isEqualTo(SimDialect.VLLM);

    try (SimEngine engine = SimEngine.start(options)) {
      HttpResponse<String> prefill = post(engine, "/v1/completions", "{\"model\":\"" + MODEL + "\",\"prompt\":"
          + "\"hello narwhal\",\"max_tokens\":1,\"kv_transfer_params\":{\"do_remote_decode\":true,"
          + "\"do_remote_prefill\":false}}", "Authorization", "Bearer sekret");
      assertThat(prefill.statusCode()).as(prefill.body()).isEqualTo(200);
      JsonNode params = json(prefill.body()).path("kv_transfer_params");
      assertThat(params.path("remote_host").asText()).isEqualTo("10.0.0.7");
      assertThat(params.path("remote_port").asInt()).isEqualTo(5601);

      HttpResponse<String> keyless = post(engine, "/v1/completions", completion("hello", 1, false));
      assertThat(keyless.statusCode()).as("VLLM_API_KEY guards /v1 as --api-key does").isEqualTo(401);
      HttpResponse<String> models = SimHttp.send(java.net.http.HttpRequest.newBuilder(
          java.net.URI.create(engine.baseUrl() + "/v1/models")).header("Authorization", "Bearer sekret").GET().build());
      assertThat(json(models.body()).path("data").path(0).path("id").asText()).isEqualTo(MODEL);
    }
  }

  @Test
  void flagsWinOverTheEnvironment_andServedModelNameIsTheNameServed() {
    SimOptions options = parse(Map.of("VLLM_NIXL_SIDE_CHANNEL_PORT", "5601", "VLLM_API_KEY", "from-env"),
        MODEL, "--served-model-name", "llama", "--kv-port", "5700", "--api-key", "from-flag",
        "--kv-transfer-config", "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\",\"engine_id\":\"p0-e\"}");

    assertThat(options.model()).isEqualTo("llama");
    assertThat(options.kvPort()).isEqualTo(5700);
    assertThat(options.apiKey()).isEqualTo("from-flag");
    assertThat(options.engineId()).isEqualTo("p0-e");
    assertThat(options.attestation()).containsEntry("kv_role", "kv_producer");
  }

  @Test
  void withoutTheLaunchLinesFlags_theSimulatorsOwnDefaultsStand() {
    SimOptions options = parse(Map.of());

    assertThat(options.model()).isEqualTo("narwhal-sim");
    assertThat(options.kvHost()).isEqualTo("localhost");
    assertThat(options.kvPort()).isEqualTo(5600);
    assertThat(options.apiKey()).isNull();
    assertThat(options.bootstrapPort()).isZero();
    assertThat(options.disaggregationMode()).isNull();
  }

  @Test
  void sglangLaunchLine_isAnSglangEngineOfThatMode_onSglangsDefaultBootstrapPort() {
    SimOptions prefill = parse(Map.of(), "--model-path", MODEL, "--disaggregation-mode", "prefill",
        "--disaggregation-transfer-backend", "nixl", "--port", "0");
    SimOptions decode = parse(Map.of(), "--model-path", MODEL, "--disaggregation-mode", "decode",
        "--disaggregation-bootstrap-port", "9000");

    assertThat(prefill.dialect()).isEqualTo(SimDialect.SGLANG);
    assertThat(prefill.disaggregationMode()).isEqualTo(DisaggregationMode.PREFILL);
    assertThat(prefill.bootstrapPort()).isEqualTo(8998);
    assertThat(prefill.model()).isEqualTo(MODEL);
    assertThat(decode.disaggregationMode()).isEqualTo(DisaggregationMode.DECODE);
    assertThat(decode.bootstrapPort()).isEqualTo(9000);
  }

  @Test
  void contradictionsAndUnsimulatedChoices_areRefusedSayingWhatToChange() {
    assertThatThrownBy(() -> parse(Map.of(), MODEL, "--model", "other"))
        .hasMessageContaining("the model is given twice");
    assertThatThrownBy(() -> parse(Map.of(), "--kv-transfer-config", "{\"kv_connector\":\"LMCacheConnectorV1\","
        + "\"kv_role\":\"kv_both\"}")).hasMessageContaining("LMCacheConnectorV1 is not simulated");
    assertThatThrownBy(() -> parse(Map.of(), "--kv-transfer-config", "{\"kv_connector\":\"NixlConnector\"}"))
        .hasMessageContaining("kv_role must be kv_producer, kv_consumer or kv_both");
    assertThatThrownBy(() -> parse(Map.of(), "--kv-transfer-config", "{\"kv_connector\":\"NixlConnector\","
        + "\"kv_role\":\"kv_both\",\"kv_rol\":1}")).hasMessageContaining("unknown field(s) [kv_rol]");
    assertThatThrownBy(() -> parse(Map.of(), "--kv-transfer-config", "kv_both"))
        .hasMessageContaining("must be a JSON object");
    assertThatThrownBy(() -> parse(Map.of(), "--disaggregation-mode", "both"))
        .hasMessageContaining("must be prefill or decode");
    assertThatThrownBy(() -> parse(Map.of(), "--disaggregation-mode", "decode", "--dialect", "vllm"))
        .hasMessageContaining("cannot run with --dialect vllm");
    assertThatThrownBy(() -> parse(Map.of(), "--disaggregation-mode", "prefill", "--bootstrap-port", "1",
        "--disaggregation-bootstrap-port", "2")).hasMessageContaining("the bootstrap port is given twice");
    assertThatThrownBy(() -> parse(Map.of("VLLM_NIXL_SIDE_CHANNEL_PORT", "side")))
        .hasMessageContaining("VLLM_NIXL_SIDE_CHANNEL_PORT must be a port");
  }
}
