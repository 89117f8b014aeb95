package narwhal.engines.vllm;

import static narwhal.testing.OpenAiWire.tree;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import narwhal.spi.EngineHttpRequest;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.Test;

/** The prefill leg's HTTP request, compared as whole JSON trees. */
class VllmPrefillRequestTest {

  private static final String SIX_KEYS = "{\"do_remote_decode\":true,\"do_remote_prefill\":false,"
      + "\"remote_engine_id\":null,\"remote_block_ids\":null,\"remote_host\":null,\"remote_port\":null}";

  private final VllmDialect dialect = new VllmDialect();

  @Test
  void prefillRequest_streamingCompletion_isOneTokenNonStreamingWithSixKeyParams() {
    EngineHttpRequest http = dialect.prefillRequest(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hello\","
        + "\"max_tokens\":50,\"temperature\":0.7,\"stop\":[\"\\n\"],\"stream\":true,"
        + "\"stream_options\":{\"include_usage\":true},\"min_tokens\":3,\"min_completion_tokens\":2,"
        + "\"ignore_eos\":false,\"user\":\"u-1\"}"), "b-17");

    assertThat(tree(http.body())).isEqualTo(tree("{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":1,"
        + "\"temperature\":0.7,\"stop\":[\"\\n\"],\"stream\":false,\"ignore_eos\":false,\"user\":\"u-1\","
        + "\"kv_transfer_params\":" + SIX_KEYS + "}"));
  }

  @Test
  void prefillRequest_clientSentMaxCompletionTokens_forcesBothLimitsToOne() {
    EngineHttpRequest http = dialect.prefillRequest(OpenAiWire.chat("{\"model\":\"m\","
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_completion_tokens\":40}"), "b-1");

    assertThat(tree(http.body())).isEqualTo(tree("{\"model\":\"m\","
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":1,\"max_completion_tokens\":1,"
        + "\"stream\":false,\"kv_transfer_params\":" + SIX_KEYS + "}"));
  }

  @Test
  void prefillRequest_clientOmittedMaxCompletionTokens_addsOnlyMaxTokens() {
    JsonNode body = tree(dialect.prefillRequest(
        OpenAiWire.chat("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"), "b-1").body());

    assertThat(body.has("max_completion_tokens")).isFalse();
    assertThat(body.get("max_tokens").asInt()).isEqualTo(1);
  }

  @Test
  void prefillRequest_clientSentOwnKvTransferParams_sendsOnlyTheRoutersSixKeys() {
    JsonNode body = tree(dialect.prefillRequest(OpenAiWire.completions("{\"prompt\":\"x\","
        + "\"kv_transfer_params\":{\"do_remote_prefill\":true,\"remote_engine_id\":\"evil\"}}"), "b-1").body());

    assertThat(body.get("kv_transfer_params")).isEqualTo(tree(SIX_KEYS));
  }

  @Test
  void prefillRequest_completionsRoute_postsToCompletionsWithBackendIdHeader() {
    EngineHttpRequest http = dialect.prefillRequest(OpenAiWire.completions("{\"prompt\":\"x\"}"), "b-42");

    assertThat(http.method()).isEqualTo("POST");
    assertThat(http.path()).isEqualTo("/v1/completions");
    assertThat(http.headers()).containsEntry("X-Request-Id", "b-42")
        .containsEntry("Content-Type", "application/json");
  }

  @Test
  void prefillRequest_chatRoute_postsToChatCompletions() {
    EngineHttpRequest http = dialect.prefillRequest(
        OpenAiWire.chat("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"), "b-43");

    assertThat(http.path()).isEqualTo("/v1/chat/completions");
    assertThat(http.headers()).containsEntry("X-Request-Id", "b-43");
  }
}
