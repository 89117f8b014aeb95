package narwhal.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import narwhal.api.InvalidRequestException;
import narwhal.proto.v1.ChatMessage;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Prompt;
import narwhal.proto.v1.Route;
import org.junit.jupiter.api.Test;

/** Which typed slot each field lands in, and what is kept verbatim. */
class OpenAiRequestCodecMappingTest {

  private static CompletionRequest completions(String body) throws InvalidRequestException {
    return OpenAiRequestCodec.parse(body.getBytes(UTF_8), Route.ROUTE_COMPLETIONS, "client-7");
  }

  private static CompletionRequest chat(String body) throws InvalidRequestException {
    return OpenAiRequestCodec.parse(body.getBytes(UTF_8), Route.ROUTE_CHAT_COMPLETIONS, null);
  }

  @Test
  void completions_typedFields() throws Exception {
    CompletionRequest r =
        completions(
            "{\"model\":\"llama\",\"prompt\":\"hi\",\"max_tokens\":7,\"max_completion_tokens\":9,"
                + "\"temperature\":0.5,\"top_p\":0.9,\"top_k\":40,\"min_p\":0.1,"
                + "\"seed\":4611686018427387904,\"stop\":\"END\",\"presence_penalty\":0.25,"
                + "\"frequency_penalty\":-1,\"repetition_penalty\":1.2,\"min_tokens\":2,"
                + "\"stream\":true,\"stream_options\":{\"include_usage\":true}}");

    assertThat(r.getRoute()).isEqualTo(Route.ROUTE_COMPLETIONS);
    assertThat(r.getModel()).isEqualTo("llama");
    assertThat(r.getPrompt().getText()).isEqualTo("hi");
    assertThat(r.getMaxTokens()).isEqualTo(7);
    assertThat(r.getMaxCompletionTokens()).isEqualTo(9);
    assertThat(r.getSampling().getTemperature()).isEqualTo(0.5);
    assertThat(r.getSampling().getTopP()).isEqualTo(0.9);
    assertThat(r.getSampling().getTopK()).isEqualTo(40);
    assertThat(r.getSampling().getMinP()).isEqualTo(0.1);
    assertThat(r.getSampling().getSeed()).isEqualTo(1L << 62);
    assertThat(r.getSampling().getStopList()).containsExactly("END");
    assertThat(r.getSampling().getPresencePenalty()).isEqualTo(0.25);
    assertThat(r.getSampling().getFrequencyPenalty()).isEqualTo(-1.0);
    assertThat(r.getSampling().getRepetitionPenalty()).isEqualTo(1.2);
    assertThat(r.getSampling().getMinTokens()).isEqualTo(2);
    assertThat(r.getStream()).isTrue();
    assertThat(r.getStreamOptions().getIncludeUsage()).isTrue();
    assertThat(r.getStreamOptions().hasContinuousUsageStats()).isFalse();
    assertThat(r.getClientRequestId()).isEqualTo("client-7");
    assertThat(r.getExtraFieldsMap()).isEmpty();
  }

  @Test
  void prompt_shapes() throws Exception {
    assertThat(completions("{\"prompt\":[5,6,7]}").getPrompt().getTokenIds().getIdsList())
        .containsExactly(5L, 6L, 7L);
    assertThat(completions("{\"prompt\":[\"a\",\"b\"]}").getPrompt().getJson())
        .isEqualTo("[\"a\",\"b\"]");
    assertThat(completions("{\"prompt\":[[1],[2,3]]}").getPrompt().getJson())
        .isEqualTo("[[1],[2,3]]");
    assertThat(completions("{\"prompt\":[]}").getPrompt().getKindCase())
        .isEqualTo(Prompt.KindCase.JSON);
    assertThat(completions("{\"prompt\":\"\"}").getPrompt().getKindCase())
        .isEqualTo(Prompt.KindCase.TEXT);
  }

  @Test
  void chat_messages_contentAndExtras() throws Exception {
    CompletionRequest r =
        chat(
            "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\",\"name\":\"ann\"},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}]},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\"}]},"
                + "{\"role\":\"assistant\"}]}");

    assertThat(r.getRoute()).isEqualTo(Route.ROUTE_CHAT_COMPLETIONS);
    assertThat(r.getClientRequestId()).isEmpty();
    ChatMessage first = r.getChat().getMessages(0);
    assertThat(first.getRole()).isEqualTo("user");
    assertThat(first.getText()).isEqualTo("hi");
    assertThat(first.getExtraFieldsMap()).containsExactly(java.util.Map.entry("name", "\"ann\""));
    assertThat(r.getChat().getMessages(1).getContentJson())
        .isEqualTo("[{\"type\":\"text\",\"text\":\"x\"}]");
    assertThat(r.getChat().getMessages(2).getContentJson()).isEqualTo("null");
    assertThat(r.getChat().getMessages(2).getExtraFieldsMap())
        .containsEntry("tool_calls", "[{\"id\":\"c1\"}]");
    assertThat(r.getChat().getMessages(3).getContentCase())
        .isEqualTo(ChatMessage.ContentCase.CONTENT_NOT_SET);
  }

  @Test
  void unknownFields_keptAsCompactVerbatimJson() throws Exception {
    CompletionRequest r =
        completions(
            "{\"prompt\":\"x\",  \"logprobs\" : 3, \"price\": 1.50, \"big\": 123456789012345678901,"
                + " \"nested\": { \"a\" : [ 1 , null , \"é\" ] }, \"user\": null}");

    assertThat(r.getExtraFieldsMap())
        .containsEntry("logprobs", "3")
        .containsEntry("price", "1.50")
        .containsEntry("big", "123456789012345678901")
        .containsEntry("nested", "{\"a\":[1,null,\"é\"]}")
        .containsEntry("user", "null");
  }

  @Test
  void nullOrUnrepresentableTypedValues_keptVerbatim() throws Exception {
    CompletionRequest r =
        completions(
            "{\"prompt\":\"x\",\"temperature\":null,\"stream\":false,\"model\":\"\",\"stop\":[],"
                + "\"max_tokens\":null,\"stream_options\":{\"include_usage\":true,\"x\":1}}");

    assertThat(r.hasSampling()).isFalse();
    assertThat(r.getStream()).isFalse();
    assertThat(r.getModel()).isEmpty();
    assertThat(r.hasMaxTokens()).isFalse();
    assertThat(r.hasStreamOptions()).isFalse();
    assertThat(r.getExtraFieldsMap())
        .containsEntry("temperature", "null")
        .containsEntry("stream", "false")
        .containsEntry("model", "\"\"")
        .containsEntry("stop", "[]")
        .containsEntry("max_tokens", "null")
        .containsEntry("stream_options", "{\"include_usage\":true,\"x\":1}");
  }

  @Test
  void toJson_typedValueWinsOverExtraOfTheSameName() throws Exception {
    CompletionRequest r = completions("{\"prompt\":\"x\",\"stream\":false,\"model\":null}");

    ObjectNode out =
        OpenAiRequestCodec.toJson(r.toBuilder().setStream(true).setModel("served").build());

    assertThat(out.get("stream").booleanValue()).isTrue();
    assertThat(out.get("model").textValue()).isEqualTo("served");
  }

  @Test
  void toJson_doesNotWriteTheClientRequestId() throws Exception {
    ObjectNode out = OpenAiRequestCodec.toJson(completions("{\"prompt\":\"x\"}"));

    assertThat(out.toString()).isEqualTo("{\"prompt\":\"x\"}");
  }

  @Test
  void toJson_handBuiltBadExtraText_isAnIllegalArgument() {
    CompletionRequest bad =
        CompletionRequest.newBuilder().putExtraFields("tools", "[oops").build();

    assertThatThrownBy(() -> OpenAiRequestCodec.toJson(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tools");
  }

  @Test
  void parse_unspecifiedRoute_isAProgrammingError() {
    assertThatThrownBy(
            () -> OpenAiRequestCodec.parse("{}".getBytes(UTF_8), Route.ROUTE_UNSPECIFIED, null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
