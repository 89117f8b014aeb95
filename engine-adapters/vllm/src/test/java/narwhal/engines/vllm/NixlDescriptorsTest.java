package narwhal.engines.vllm;

import static narwhal.testing.OpenAiWire.tree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import narwhal.spi.UnreadableHandoffException;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reading a producer's {@code kv_transfer_params} into a descriptor and rendering it for the
 * decode leg gives back exactly what the producer sent: empty strings, nulls and fields this
 * router has never heard of included.
 */
class NixlDescriptorsTest {

  @ParameterizedTest
  @ValueSource(strings = {
      // What vLLM sends, plus a field a newer vLLM might add.
      VllmWire.PRODUCER_PARAMS,
      // Empty strings are values the producer chose, not absent fields.
      "{\"do_remote_prefill\":true,\"do_remote_decode\":false,\"remote_block_ids\":[1,2],"
          + "\"remote_engine_id\":\"e\",\"remote_request_id\":\"\",\"remote_host\":\"\","
          + "\"remote_port\":5600,\"tp_size\":1}",
      "{\"remote_engine_id\":\"\",\"remote_block_ids\":[],\"remote_host\":\"\",\"remote_request_id\":\"\"}",
      // Nulls everywhere, typed keys included.
      "{\"do_remote_prefill\":null,\"do_remote_decode\":null,\"remote_block_ids\":null,"
          + "\"remote_engine_id\":null,\"remote_request_id\":null,\"remote_host\":null,"
          + "\"remote_port\":null,\"tp_size\":null}",
      // Typed keys of another JSON type, and unknown fields of every JSON type.
      "{\"remote_engine_id\":\"e\",\"remote_block_ids\":[0],\"remote_host\":[\"h1\",\"h2\"],"
          + "\"remote_port\":\"5600\",\"tp_size\":1.5,\"remote_request_id\":42,"
          + "\"kv_connector\":\"NixlConnector\",\"n\":-3,\"f\":0.25,\"b\":false,\"s\":\"naïve ✓\","
          + "\"o\":{\"deep\":{\"list\":[1,\"two\",null,{}]}},\"a\":[],\"z\":null,\"\":\"empty key\"}",
      // Ports and block ids at the edges of their types.
      "{\"remote_engine_id\":\"e\",\"remote_block_ids\":[0,9223372036854775807],"
          + "\"remote_port\":2147483648,\"tp_size\":0}",
      // Strings that spell the literals the flags are rendered from must stay strings.
      "{\"do_remote_prefill\":\"true\",\"do_remote_decode\":\"false\",\"x\":\"null\",\"y\":true}",
      // Nothing at all.
      "{}"})
  void readThenRender_givesBackTheProducersParamsVerbatim(String params) throws Exception {
    KvHandoffDescriptor d = NixlDescriptors.read((ObjectNode) tree(params), NixlDescriptors.NIXL);

    assertThat(rendered(d)).isEqualTo(tree(params));
  }

  @Test
  void read_emptyHostAndRequestId_areNotTypedValues_butStillReachDecode() throws Exception {
    String params = "{\"do_remote_prefill\":true,\"remote_block_ids\":[3],\"remote_engine_id\":\"e\","
        + "\"remote_request_id\":\"\",\"remote_host\":\"\",\"remote_port\":5600}";

    KvHandoffDescriptor d = NixlDescriptors.read((ObjectNode) tree(params), NixlDescriptors.NIXL);

    assertThat(d.getHost()).isEmpty();
    assertThat(d.getRemoteRequestId()).isEmpty();
    assertThat(d.getEngineId()).isEqualTo("e");
    assertThat(d.getBlockIdsList()).containsExactly(3L);
    assertThat(d.getPort()).isEqualTo(5600);
    assertThat(rendered(d).get("remote_host").isTextual()).isTrue();
    assertThat(rendered(d).get("remote_host").asText()).isEmpty();
    assertThat(rendered(d).get("remote_request_id").isTextual()).isTrue();
    assertThat(rendered(d).get("remote_request_id").asText()).isEmpty();
  }

  @Test
  void read_wellFormedFields_areTyped() throws Exception {
    KvHandoffDescriptor d = NixlDescriptors.read((ObjectNode) tree(VllmWire.PRODUCER_PARAMS), "nixl");

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
  void decodeRequest_producerWithEmptyStrings_sendsThemToDecode() throws Exception {
    VllmDialect dialect = new VllmDialect();
    String params = "{\"do_remote_prefill\":true,\"do_remote_decode\":false,\"remote_block_ids\":[1],"
        + "\"remote_engine_id\":\"e\",\"remote_request_id\":\"\",\"remote_host\":\"\",\"remote_port\":5600,"
        + "\"tp_size\":1,\"unknown\":null}";
    KvHandoffDescriptor handoff = dialect.readPrefillAnswer(VllmWire.prefillResponse(params), "nixl").handoff();

    JsonNode body = tree(dialect.decodeRequest(OpenAiWire.completions("{\"prompt\":\"x\"}"), handoff, "b").body());

    assertThat(body.get("kv_transfer_params")).isEqualTo(tree(params));
    assertThat(tree(dialect.transferParametersJson(handoff))).isEqualTo(tree(params));
  }

  @Test
  void read_typedKeyOfWrongShape_isStillRejectedWhereTheRouterNeedsIt() {
    for (String params : new String[] {"{\"remote_engine_id\":7}", "{\"remote_block_ids\":\"1,2\"}",
        "{\"remote_block_ids\":[1,-2]}"}) {
      assertThatThrownBy(() -> NixlDescriptors.read((ObjectNode) tree(params), "nixl"))
          .as(params)
          .isInstanceOf(UnreadableHandoffException.class);
    }
  }

  /** The rendered parameters as the decode engine reads them off the wire. */
  private static JsonNode rendered(KvHandoffDescriptor d) {
    return tree(NixlDescriptors.render(d).toString());
  }
}
