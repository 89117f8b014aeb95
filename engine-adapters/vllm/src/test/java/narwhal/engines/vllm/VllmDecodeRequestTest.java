package narwhal.engines.vllm;

import static narwhal.testing.OpenAiWire.tree;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import narwhal.spi.EngineHttpRequest;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.Test;

/** The decode leg's HTTP request: the client's body plus the producer's parameters verbatim. */
class VllmDecodeRequestTest {

  private static final String CLIENT = "{\"model\":\"m\",\"prompt\":[1,2,3],\"max_tokens\":64,"
      + "\"temperature\":0.2,\"top_p\":0.9,\"seed\":7,\"min_tokens\":4,\"stream\":true,"
      + "\"stream_options\":{\"include_usage\":true},\"logprobs\":2}";

  private final VllmDialect dialect = new VllmDialect();

  @Test
  void decodeRequest_crossedHandoff_isClientBodyPlusProducerParamsVerbatim() throws Exception {
    KvHandoffDescriptor handoff =
        dialect.readPrefillAnswer(VllmWire.prefillResponse(VllmWire.PRODUCER_PARAMS), "nixl").handoff();

    EngineHttpRequest http = dialect.decodeRequest(OpenAiWire.completions(CLIENT), handoff, "b-2");

    ObjectNode expected = (ObjectNode) tree(CLIENT);
    expected.set("kv_transfer_params", tree(VllmWire.PRODUCER_PARAMS));
    assertThat(tree(http.body())).isEqualTo(expected);
    assertThat(http.path()).isEqualTo("/v1/completions");
    assertThat(http.headers()).containsEntry("X-Request-Id", "b-2");
  }

  @Test
  void decodeRequest_chatHandoff_keepsMessagesLimitAndStreamSettings() throws Exception {
    String client = "{\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
        + "{\"role\":\"user\",\"content\":\"hi\"}],\"max_completion_tokens\":9,\"stream\":true,"
        + "\"stream_options\":{\"include_usage\":true,\"continuous_usage_stats\":true},\"top_k\":5}";
    KvHandoffDescriptor handoff =
        dialect.readPrefillAnswer(VllmWire.prefillResponse(VllmWire.PRODUCER_PARAMS), "nixl").handoff();

    EngineHttpRequest http = dialect.decodeRequest(OpenAiWire.chat(client), handoff, "b-2");

    ObjectNode expected = (ObjectNode) tree(client);
    expected.set("kv_transfer_params", tree(VllmWire.PRODUCER_PARAMS));
    assertThat(tree(http.body())).isEqualTo(expected);
    assertThat(http.path()).isEqualTo("/v1/chat/completions");
  }

  @Test
  void decodeRequest_typedFieldsOfOddShape_travelVerbatim() throws Exception {
    String params = "{\"remote_engine_id\":\"e\",\"remote_block_ids\":[1],\"remote_host\":\"h\","
        + "\"remote_port\":\"5600\",\"tp_size\":null,\"remote_request_id\":42,\"do_remote_prefill\":true}";
    KvHandoffDescriptor handoff = dialect.readPrefillAnswer(VllmWire.prefillResponse(params), "nixl").handoff();

    JsonNode body = tree(dialect.decodeRequest(OpenAiWire.completions("{\"prompt\":\"x\"}"), handoff, "b").body());

    assertThat(body.get("kv_transfer_params")).isEqualTo(tree(params));
  }

  @Test
  void decodeRequest_sameEngine_hasNoTransferParamsEvenIfRequestCarriedSome() {
    CompletionRequest request = OpenAiWire.completions(CLIENT).toBuilder()
        .putExtraFields("kv_transfer_params", "{\"do_remote_prefill\":true,\"remote_engine_id\":\"x\"}")
        .build();

    EngineHttpRequest http = dialect.decodeRequest(request, null, "b-3");

    assertThat(tree(http.body())).isEqualTo(tree(CLIENT));
  }

  @Test
  void decodeRequest_clientsOwnParamsMidBody_areReplacedByTheProducersAsTheLastMember() throws Exception {
    CompletionRequest request = OpenAiWire.completions(CLIENT).toBuilder()
        .putExtraFields("kv_transfer_params", "{\"do_remote_prefill\":true,\"remote_engine_id\":\"x\"}")
        .putExtraFields("vendor_hint", "{\"n\":[1.50,\"\u00e9\\u0000\"]}")
        .build();
    KvHandoffDescriptor handoff =
        dialect.readPrefillAnswer(VllmWire.prefillResponse(VllmWire.PRODUCER_PARAMS), "nixl").handoff();

    byte[] body = dialect.decodeRequest(request, handoff, "b-4").body();

    // What the tree would have written: the request without the client's parameters, the
    // producer's set last.
    ObjectNode expected = narwhal.openai.OpenAiRequestCodec.toJson(request);
    expected.remove("kv_transfer_params");
    expected.set("kv_transfer_params", NixlDescriptors.render(handoff));
    assertThat(new String(body, java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(narwhal.openai.Json.compact(expected))
        .endsWith(",\"kv_transfer_params\":" + narwhal.openai.Json.compact(NixlDescriptors.render(handoff)) + "}");
    assertThat(tree(body).get("kv_transfer_params")).isEqualTo(tree(VllmWire.PRODUCER_PARAMS));
  }

  @Test
  void oneDraft_completesForEveryAttempt_withOrWithoutAHandoff() throws Exception {
    KvHandoffDescriptor handoff =
        dialect.readPrefillAnswer(VllmWire.prefillResponse(VllmWire.PRODUCER_PARAMS), "nixl").handoff();
    narwhal.spi.DecodeDraft draft = dialect.draftDecodeRequest(OpenAiWire.completions(CLIENT));

    EngineHttpRequest first = draft.complete(handoff, "b-d1");
    EngineHttpRequest same = draft.complete(null, "b-d2");
    EngineHttpRequest again = draft.complete(handoff, "b-d3");

    assertThat(first.body()).isEqualTo(again.body());
    assertThat(tree(same.body())).isEqualTo(tree(CLIENT));
    assertThat(again.headers()).containsEntry("X-Request-Id", "b-d3");
    assertThat(first.headers()).containsEntry("X-Request-Id", "b-d1");
  }
}
