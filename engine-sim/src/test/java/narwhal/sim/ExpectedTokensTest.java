package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ExpectedTokensTest {

  @Test
  void sameSeedAndPrompt_giveSameTokens() {
    assertThat(SimEngine.expectedTokens(1, "hello", 12))
        .isEqualTo(SimEngine.expectedTokens(1, "hello", 12))
        .hasSize(12);
  }

  @Test
  void longerSequence_extendsShorterOne() {
    List<String> five = SimEngine.expectedTokens(9, "p", 5);
    assertThat(SimEngine.expectedTokens(9, "p", 8).subList(0, 5)).isEqualTo(five);
  }

  @Test
  void tokensAreShortWordsWithLeadingSpace() {
    assertThat(SimEngine.expectedTokens(0, "x", 50))
        .allSatisfy(token -> assertThat(token).matches(" [a-z]{3,9}"));
  }

  @Test
  void seedAndPrompt_bothChangeTheOutput() {
    List<String> base = SimEngine.expectedTokens(1, "hello", 12);
    assertThat(SimEngine.expectedTokens(2, "hello", 12)).isNotEqualTo(base);
    assertThat(SimEngine.expectedTokens(1, "hello!", 12)).isNotEqualTo(base);
  }

  @Test
  void outputIsPinned() {
    // Frozen: a change of hash or generator would silently break recorded expectations elsewhere.
    assertThat(SimEngine.expectedTokens(0, "hello", 4))
        .containsExactly(" orca", " orca", " papa", " beluga");
    assertThat(SimEngine.expectedTokens(42, "be brief\nhello there", 3))
        .containsExactly(" bravo", " xray", " charlie");
    assertThat(SimEngine.expectedText(0, "hello", 2)).isEqualTo(" orca orca");
    assertThat(SimEngine.expectedTokens(0, "", 0)).isEmpty();
  }
}
