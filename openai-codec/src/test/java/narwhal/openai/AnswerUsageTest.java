package narwhal.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class AnswerUsageTest {

  @Test
  void aCompletionsAnswer_givesItsPromptTokens_whereverUsageSits() {
    assertThat(AnswerUsage.promptTokens("{\"id\":\"cmpl-1\",\"choices\":[{\"index\":0,\"text\":\"x\","
        + "\"usage\":{\"prompt_tokens\":99}}],\"usage\":{\"completion_tokens\":1,\"prompt_tokens\":42,"
        + "\"prompt_tokens_details\":null},\"kv_transfer_params\":{\"remote_block_ids\":[1,2]}}"))
        .as("the top-level usage, not one nested in a choice").isEqualTo(42);
    assertThat(AnswerUsage.promptTokens("{\"kv_transfer_params\":{\"usage\":{\"prompt_tokens\":7}},"
        + "\"usage\":{\"prompt_tokens\":8}}")).isEqualTo(8);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", "null", "[]", "[{\"usage\":{\"prompt_tokens\":3}}]", "{", "{\"usage\":", "{\"usage\":null}",
      "{\"usage\":{}}", "{\"usage\":{\"prompt_tokens\":\"3\"}}", "{\"usage\":{\"prompt_tokens\":3.5}}",
      "{\"usage\":{\"prompt_tokens\":-3}}", "{\"usage\":{\"prompt_tokens\":123456789012345678901234567890}}",
      "{\"usage\":{\"prompt_to", "{\"choices\":[]}", "not json"})
  void anAnswerWithoutAUsableCount_givesZero(String body) {
    assertThat(AnswerUsage.promptTokens(body)).isZero();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"usage\":{\"prompt_tokens\":1}}|1",
      "{\"a\":[[[{\"usage\":{\"prompt_tokens\":1}}]]],\"usage\":{\"total_tokens\":9,\"prompt_tokens\":9007199254740993}}|9007199254740993"})
  void theCount_isReadExactly(String body, long expected) {
    assertThat(AnswerUsage.promptTokens(body)).isEqualTo(expected);
  }
}
