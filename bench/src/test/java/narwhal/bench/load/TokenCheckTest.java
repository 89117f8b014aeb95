package narwhal.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

class TokenCheckTest {

  private static final List<String> TOKENS = SimEngine.expectedTokens(0, "hello narwhal", 3);

  private final TokenCheck check = new TokenCheck(
      String.join("", TOKENS).getBytes(StandardCharsets.UTF_8), 3, new JsonStringScanner("text"));

  private TokenCheck.Event send(String data) {
    byte[] b = data.getBytes(StandardCharsets.UTF_8);
    return check.onEvent(b, b.length);
  }

  private static String chunk(String text) {
    return "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"" + text
        + "\",\"finish_reason\":null}],\"usage\":null}";
  }

  @Test
  void exactTokensThenDone_passes() {
    for (String t : TOKENS) {
      assertThat(send(chunk(t))).isEqualTo(TokenCheck.Event.TOKEN);
    }
    assertThat(send("[DONE]")).isEqualTo(TokenCheck.Event.DONE);
    assertThat(check.passed()).isTrue();
    assertThat(check.failure()).isNull();
    assertThat(check.tokens()).isEqualTo(3);
  }

  @Test
  void emptyTextChunk_isNeitherTokenNorFailure() {
    assertThat(send(chunk(""))).isEqualTo(TokenCheck.Event.EMPTY);
    assertThat(check.tokens()).isZero();
  }

  @Test
  void wrongToken_fails() {
    send(chunk(TOKENS.get(0)));
    assertThat(send(chunk(" not-the-token"))).isEqualTo(TokenCheck.Event.FAILED);
    assertThat(check.passed()).isFalse();
    assertThat(check.failure()).contains("token 1 differs");
  }

  @Test
  void missingDone_failsWithTheCount() {
    TOKENS.forEach(t -> send(chunk(t)));
    assertThat(check.passed()).isFalse();
    assertThat(check.failure()).isEqualTo("stream ended after 3 of 3 tokens without [DONE]");
  }

  @Test
  void doneTooEarly_fails() {
    send(chunk(TOKENS.get(0)));
    send("[DONE]");
    assertThat(check.passed()).isFalse();
    assertThat(check.failure()).isEqualTo("[DONE] after 1 of 3 tokens");
  }

  @Test
  void errorEvent_fails() {
    send(chunk(TOKENS.get(0)));
    assertThat(send("{\"error\":{\"message\":\"engine went away\",\"type\":\"server_error\"}}"))
        .isEqualTo(TokenCheck.Event.FAILED);
    assertThat(check.failure()).startsWith("error event");
  }

  @Test
  void eventAfterDone_fails() {
    TOKENS.forEach(t -> send(chunk(t)));
    send("[DONE]");
    assertThat(send(chunk(" extra"))).isEqualTo(TokenCheck.Event.FAILED);
    assertThat(check.passed()).isFalse();
  }
}
