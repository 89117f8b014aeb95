package narwhal.engines.vllm;

import static narwhal.testing.OpenAiWire.tree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import narwhal.spi.EngineHttpRequest;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.Test;

/**
 * The prompt count request and answer, as vLLM's {@code POST /tokenize} takes and gives them
 * ({@code TokenizeCompletionRequest}, {@code TokenizeChatRequest}, {@code TokenizeResponse}).
 */
class VllmTokenizeTest {

  private final VllmDialect dialect = new VllmDialect();

  @Test
  void aTextPrompt_isSentAlone_withoutGenerationSettings() {
    EngineHttpRequest http = dialect.tokenizeRequest(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hello\","
        + "\"max_tokens\":50,\"temperature\":0.7,\"stream\":true,\"add_special_tokens\":false}"), "rid-c");

    assertThat(http.method()).isEqualTo("POST");
    assertThat(http.path()).isEqualTo("/tokenize");
    assertThat(http.headers()).containsEntry("X-Request-Id", "rid-c").containsEntry("Content-Type", "application/json");
    assertThat(tree(http.body())).isEqualTo(tree("{\"model\":\"m\",\"prompt\":\"hello\",\"add_special_tokens\":false}"));
  }

  @Test
  void aOneStringList_isSentAsItsString_otherListsAreNotCountedByTheEngine() {
    assertThat(tree(dialect.tokenizeRequest(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":[\"hi\"]}"), "c").body()))
        .isEqualTo(tree("{\"model\":\"m\",\"prompt\":\"hi\"}"));
    assertThat(dialect.tokenizeRequest(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":[\"a\",\"b\"]}"), "c"))
        .isNull();
    assertThat(dialect.tokenizeRequest(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":[[1,2],[3]]}"), "c"))
        .isNull();
  }

  @Test
  void chat_sendsTheMessagesAndTheClientsChatTemplateFields() {
    EngineHttpRequest http = dialect.tokenizeRequest(OpenAiWire.chat("{\"model\":\"m\","
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":9,\"stream\":true,"
        + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],"
        + "\"chat_template_kwargs\":{\"enable_thinking\":false},\"add_generation_prompt\":true,"
        + "\"continue_final_message\":false,\"logprobs\":true}"), "rid-c");

    assertThat(tree(http.body())).isEqualTo(tree("{\"model\":\"m\","
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
        + "\"add_generation_prompt\":true,\"continue_final_message\":false,"
        + "\"chat_template_kwargs\":{\"enable_thinking\":false},"
        + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]}"));
  }

  @Test
  void theAnswersCount_isRead() {
    assertThat(dialect.readTokenCount("{\"count\":7,\"max_model_len\":4096,\"tokens\":[1,2,3,4,5,6,7]}"))
        .isEqualTo(7);
    assertThat(dialect.readTokenCount("{\"tokens\":[],\"count\":0,\"max_model_len\":8,\"token_strs\":null}"))
        .isZero();
  }

  @Test
  void anAnswerWithoutACount_isRefusedWithWhy() {
    assertThatThrownBy(() -> dialect.readTokenCount("{\"tokens\":[1]}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count");
    assertThatThrownBy(() -> dialect.readTokenCount("{\"count\":-1}")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> dialect.readTokenCount("{\"count\":2.5}")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> dialect.readTokenCount("<html>")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not JSON");
    assertThatThrownBy(() -> dialect.readTokenCount("")).isInstanceOf(IllegalArgumentException.class);
  }
}
