package narwhal.engines.vllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import narwhal.core.legs.DescriptorValidator;
import narwhal.spi.PrefillResult;
import narwhal.spi.UnreadableHandoffException;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reading the producer's answer, and what validation then makes of the descriptor. */
class VllmPrefillResponseTest {

  private final VllmDialect dialect = new VllmDialect();

  @Test
  void readPrefillResponse_vllmProducerAnswer_mapsTypedFields() throws Exception {
    KvHandoffDescriptor d = dialect.readPrefillAnswer(VllmWire.prefillResponse(VllmWire.PRODUCER_PARAMS), "nixl").handoff();

    assertThat(d.getConnector()).isEqualTo("nixl");
    assertThat(d.getEngineId()).isEqualTo("7f3c1b2a-engine-p");
    assertThat(d.getBlockIdsList()).containsExactly(4L, 5L, 6L);
    assertThat(d.getHost()).isEqualTo("10.0.0.7");
    assertThat(d.getPort()).isEqualTo(5600);
    assertThat(d.getTpSize()).isEqualTo(1);
    assertThat(d.getRemoteRequestId()).isEqualTo("cmpl-b1-0-1a2b3c4d");
    assertThat(d.getOpaqueFieldsMap()).containsOnlyKeys("do_remote_prefill", "do_remote_decode", "future_field");
  }

  @Test
  void readPrefillResponse_nullParams_isUnreadable() {
    assertThatThrownBy(() -> dialect.readPrefillAnswer(VllmWire.prefillResponse("null"), "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class)
        .hasMessageContaining("no kv_transfer_params");
  }

  @Test
  void readPrefillResponse_missingParams_isUnreadable() {
    assertThatThrownBy(() -> dialect.readPrefillAnswer("{\"id\":\"cmpl-1\",\"choices\":[]}", "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class)
        .hasMessageContaining("no kv_transfer_params");
  }

  @Test
  void readPrefillResponse_notJson_isUnreadable() {
    assertThatThrownBy(() -> dialect.readPrefillAnswer("<html>oops</html>", "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class)
        .hasMessageContaining("not JSON");
  }

  @Test
  void readPrefillResponse_contentAfterTheAnswer_isUnreadable() {
    assertThatThrownBy(() -> dialect.readPrefillAnswer(
        VllmWire.prefillResponse(VllmWire.PRODUCER_PARAMS) + " {\"id\":2}", "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class)
        .hasMessageContaining("not JSON");
  }

  @Test
  void readPrefillResponse_malformedFieldBeforeTheParams_isUnreadable() {
    // The rest of the answer is skipped, not trusted: a broken "choices" still makes it unreadable.
    assertThatThrownBy(() -> dialect.readPrefillAnswer(
        "{\"choices\":[{\"text\":\"a\"}}, \"kv_transfer_params\":" + VllmWire.PRODUCER_PARAMS + "}", "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class)
        .hasMessageContaining("not JSON");
  }

  @Test
  void readPrefillResponse_repeatedParams_isUnreadable() {
    // Which of two descriptors would the engine stand behind? Neither is guessed at.
    String body = "{\"kv_transfer_params\":{\"remote_engine_id\":\"first\"},\"choices\":[{\"text\":\"a\","
        + "\"logprobs\":{\"x\":[1,[2,{}]]}}],\"kv_transfer_params\":" + VllmWire.PRODUCER_PARAMS + "}";

    assertThatThrownBy(() -> dialect.readPrefillAnswer(body, "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class)
        .hasMessageContaining("Duplicate field 'kv_transfer_params'");
  }

  @Test
  void readPrefillResponse_paramsAfterNestedFields_areFound() throws Exception {
    String body = "{\"choices\":[{\"text\":\"a\",\"logprobs\":{\"x\":[1,[2,{}]]}}],"
        + "\"usage\":{\"prompt_tokens\":9},\"kv_transfer_params\":" + VllmWire.PRODUCER_PARAMS + "}";

    assertThat(dialect.readPrefillAnswer(body, "nixl").handoff().getEngineId()).isEqualTo("7f3c1b2a-engine-p");
  }

  @Test
  void readPrefillResponse_topLevelArray_hasNoParams() {
    assertThatThrownBy(() -> dialect.readPrefillAnswer("[{\"kv_transfer_params\":{}}]", "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class)
        .hasMessageContaining("no kv_transfer_params");
  }

  @Test
  void readPrefillResponse_paramsNotAnObject_isUnreadable() {
    assertThatThrownBy(() -> dialect.readPrefillAnswer(VllmWire.prefillResponse("[1,2]"), "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"[\"a\",\"b\"]", "[1,-2]", "\"1,2\"", "7", "[1.5]", "[null]"})
  void readPrefillResponse_badBlockIds_isUnreadable(String blocks) {
    String params = "{\"remote_engine_id\":\"e\",\"remote_block_ids\":" + blocks + "}";

    assertThatThrownBy(() -> dialect.readPrefillAnswer(VllmWire.prefillResponse(params), "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class)
        .hasMessageContaining("remote_block_ids");
  }

  @Test
  void readPrefillResponse_engineIdNotAString_isUnreadable() {
    String params = "{\"remote_engine_id\":17,\"remote_block_ids\":[1]}";

    assertThatThrownBy(() -> dialect.readPrefillAnswer(VllmWire.prefillResponse(params), "nixl").handoff())
        .isInstanceOf(UnreadableHandoffException.class)
        .hasMessageContaining("remote_engine_id");
  }

  @Test
  void readPrefillResponse_missingEngineId_isReadButRejectedByValidation() throws Exception {
    KvHandoffDescriptor d = dialect.readPrefillAnswer(
        VllmWire.prefillResponse("{\"remote_block_ids\":[1,2],\"remote_host\":\"h\",\"remote_port\":1}"), "nixl").handoff();

    assertThat(d.getEngineId()).isEmpty();
    assertThat(DescriptorValidator.problem(result(d), new VllmDialect(), "nixl", "/v1/completions"))
        .isEqualTo("the descriptor names no producer engine identity");
  }

  @Test
  void readPrefillResponse_kvConnectorNamesAnotherConnector_isRejectedByValidation() throws Exception {
    KvHandoffDescriptor d = dialect.readPrefillAnswer(VllmWire.prefillResponse(
        "{\"kv_connector\":\"LMCacheConnectorV1\",\"remote_engine_id\":\"e\",\"remote_block_ids\":[1]}"), "nixl").handoff();

    assertThat(d.getConnector()).isEqualTo("lmcacheconnectorv1");
    assertThat(DescriptorValidator.problem(result(d), new VllmDialect(), "nixl", "/v1/completions"))
        .contains("connector 'lmcacheconnectorv1'").contains("'nixl'");
  }

  @Test
  void readPrefillResponse_kvConnectorNamesNixl_isAccepted() throws Exception {
    KvHandoffDescriptor d = dialect.readPrefillAnswer(VllmWire.prefillResponse(
        "{\"kv_connector\":\"NixlConnector\",\"remote_engine_id\":\"e\",\"remote_block_ids\":[1]}"), "nixl").handoff();

    assertThat(d.getConnector()).isEqualTo("nixl");
    assertThat(DescriptorValidator.problem(result(d), new VllmDialect(), "nixl", "/v1/completions")).isNull();
  }

  @Test
  void readPrefillResponse_emptyBlockList_isRejectedByValidation() throws Exception {
    KvHandoffDescriptor d = dialect.readPrefillAnswer(
        VllmWire.prefillResponse("{\"remote_engine_id\":\"e\",\"remote_block_ids\":[]}"), "nixl").handoff();

    assertThat(DescriptorValidator.problem(result(d), new VllmDialect(), "nixl", "/v1/completions"))
        .isEqualTo("the descriptor lists no KV block ids");
  }

  @Test
  void errorMessage_vllmErrorBody_isTheInnerMessage() {
    assertThat(dialect.errorMessage(OpenAiWire.errorBody(400, "prompt too long"))).isEqualTo("prompt too long");
    assertThat(dialect.errorMessage("{\"error\":\"Unauthorized\"}")).isEqualTo("Unauthorized");
    assertThat(dialect.errorMessage("")).isEmpty();
  }

  private static PrefillResult result(KvHandoffDescriptor d) {
    narwhal.proto.v1.PrefillResult proto = narwhal.proto.v1.PrefillResult.newBuilder()
        .setHandoff(d).setProducerIid("p1").setProducerUrl("http://10.0.0.1:8100")
        .setEndpoint("/v1/completions").setBackendRequestId("b1").setRoute(Route.ROUTE_COMPLETIONS).build();
    return new PrefillResult(proto, new VllmDialect().transferParametersJson(d), 0, 0);
  }
}
