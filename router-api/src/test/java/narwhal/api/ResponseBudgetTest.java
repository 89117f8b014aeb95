package narwhal.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** serving.max_response_bytes as both front-ends count it: UTF-8 bytes, not characters. */
class ResponseBudgetTest {

  @Test
  void utf8Length_matchesTheEncoder_forEveryWidth() {
    for (String text : new String[] {"", "plain", "é", "日本語", "😀 emoji", "mixé日😀"}) {
      assertThat(ResponseBudget.utf8Length(text))
          .as(text)
          .isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
    }
  }

  @Test
  void nonAsciiOutput_isCountedInBytes_soFewerCharactersOverflow() {
    ResponseBudget budget = new ResponseBudget(8);

    assertThat(budget.add("éééé")).as("4 characters, 8 bytes").isTrue();
    assertThat(budget.add("é")).as("5 characters, 10 bytes").isFalse();
  }

  @Test
  void finishedResponse_isCheckedAgainstTheLimit_andTheErrorNamesIt() {
    ResponseBudget budget = new ResponseBudget(100);

    assertThat(budget.fits(100)).isTrue();
    assertThat(budget.fits(101)).isFalse();
    RouterError error = budget.overLimit();
    assertThat(error.status()).isEqualTo(502);
    assertThat(error.type()).isEqualTo("decode");
    assertThat(error.message()).isEqualTo(
        "Upstream response could not be assembled: response exceeds the limit of 100 bytes (serving.max_response_bytes)");
  }
}
