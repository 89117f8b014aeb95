package narwhal.engines.vllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.MalformedEventException;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamError;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Classifying vLLM stream events: generated output is a token, everything else metadata. */
class VllmStreamDecoderTest {

  private final DecodeEventDecoder completions = new VllmDialect().decodeEventDecoder(Route.ROUTE_COMPLETIONS);
  private final DecodeEventDecoder chat = new VllmDialect().decodeEventDecoder(Route.ROUTE_CHAT_COMPLETIONS);

  @Test
  void decode_completionsTextChunk_isTokenWithText() throws Exception {
    StreamEvent e = completions.decode(OpenAiWire.completionToken("Hel"));

    assertThat(e.hasToken()).isTrue();
    assertThat(e.getToken().getText()).isEqualTo("Hel");
    assertThat(e.getToken().hasFinishReason()).isFalse();
    assertThat(OpenAiWire.tree(e.getToken().getChunkJson())).isEqualTo(OpenAiWire.tree(OpenAiWire.completionToken("Hel")));
  }

  @Test
  void decode_completionsFinalChunkWithText_isTokenCarryingFinishReason() throws Exception {
    StreamEvent e = completions.decode(OpenAiWire.completionFinish("!", "length"));

    assertThat(e.hasToken()).isTrue();
    assertThat(e.getToken().getFinishReason()).isEqualTo("length");
  }

  @Test
  void decode_completionsFinishWithoutText_isMetadataCarryingFinishReason() throws Exception {
    StreamEvent e = completions.decode(OpenAiWire.completionFinish("", "stop"));

    assertThat(e.hasMetadata()).isTrue();
    assertThat(e.getMetadata().getFinishReason()).isEqualTo("stop");
  }

  @Test
  void decode_chatRoleChunk_isMetadataWithRole() throws Exception {
    StreamEvent e = chat.decode(OpenAiWire.chatRole());

    assertThat(e.hasMetadata()).isTrue();
    assertThat(e.getMetadata().getRole()).isEqualTo("assistant");
    assertThat(e.getMetadata().hasFinishReason()).isFalse();
  }

  @Test
  void decode_chatContentChunk_isToken() throws Exception {
    StreamEvent e = chat.decode(OpenAiWire.chatContent("Hi"));

    assertThat(e.hasToken()).isTrue();
    assertThat(e.getToken().getText()).isEqualTo("Hi");
  }

  @Test
  void decode_chatEmptyDelta_isMetadata() throws Exception {
    StreamEvent e = chat.decode("{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":null}]}");

    assertThat(e.hasMetadata()).isTrue();
  }

  @Test
  void decode_chatFinishChunkWithoutText_isMetadataCarryingFinishReason() throws Exception {
    StreamEvent e = chat.decode(OpenAiWire.chatFinish("stop"));

    assertThat(e.hasMetadata()).isTrue();
    assertThat(e.getMetadata().getFinishReason()).isEqualTo("stop");
  }

  @Test
  void decode_chatToolCallDelta_isToken() throws Exception {
    StreamEvent e = chat.decode("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
        + "\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]},"
        + "\"finish_reason\":null}]}");

    assertThat(e.hasToken()).isTrue();
    assertThat(e.getToken().getText()).isEmpty();
  }

  @Test
  void decode_chatReasoningContentDelta_isToken() throws Exception {
    assertThat(chat.decode("{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\"}}]}")
        .hasToken()).isTrue();
    assertThat(chat.decode("{\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"think\"}}]}")
        .hasToken()).isTrue();
  }

  @Test
  void decode_usageChunk_isMetadataWithUsage() throws Exception {
    StreamEvent e = completions.decode(OpenAiWire.usage(5, 7));

    assertThat(e.hasMetadata()).isTrue();
    assertThat(e.getMetadata().getUsage().getPromptTokens()).isEqualTo(5);
    assertThat(e.getMetadata().getUsage().getCompletionTokens()).isEqualTo(7);
    assertThat(e.getMetadata().getUsage().getTotalTokens()).isEqualTo(12);
  }

  @Test
  void decode_doneMarker_isDone() throws Exception {
    assertThat(completions.decode("[DONE]").hasDone()).isTrue();
    assertThat(chat.decode("[DONE]").hasDone()).isTrue();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "400 | 400", "503 | 503", "599 | 599", "429 | 429",
      "200 | 500", "0 | 500", "600 | 500", "null | 500", "'\"400\"' | 500", "1.5 | 500"})
  void decode_errorObject_isErrorWithStatusInRangeElse500(String code, int status) throws Exception {
    StreamEvent e = chat.decode(OpenAiWire.streamError(code));

    assertThat(e.hasError()).isTrue();
    StreamError err = e.getError();
    assertThat(err.getStatus()).isEqualTo(status);
    assertThat(err.getMessage()).isEqualTo("boom");
    assertThat(err.getType()).isEqualTo("InternalServerError");
  }

  @Test
  void decode_errorAsPlainString_isError500() throws Exception {
    StreamEvent e = completions.decode("{\"error\":\"Internal server error\"}");

    assertThat(e.getError().getStatus()).isEqualTo(500);
    assertThat(e.getError().getMessage()).isEqualTo("Internal server error");
  }

  @Test
  void decode_malformedJson_throwsMalformedEvent() {
    assertThatThrownBy(() -> completions.decode("{\"choices\":[")).isInstanceOf(MalformedEventException.class);
    assertThatThrownBy(() -> completions.decode("[1,2]")).isInstanceOf(MalformedEventException.class);
    assertThatThrownBy(() -> chat.decode("{\"choices\":{}}")).isInstanceOf(MalformedEventException.class);
  }
}
