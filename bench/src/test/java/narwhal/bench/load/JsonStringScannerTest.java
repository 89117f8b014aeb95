package narwhal.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonStringScannerTest {

  private final JsonStringScanner text = new JsonStringScanner("text");

  private String find(String json) {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    assertThat(text.find(b, b.length)).as("found in %s", json).isTrue();
    return new String(text.value(), 0, text.valueLength(), StandardCharsets.UTF_8);
  }

  @Test
  void find_plainValue_isReturned() {
    assertThat(find("{\"choices\":[{\"index\":0,\"text\":\" alpha\",\"logprobs\":null}]}")).isEqualTo(" alpha");
  }

  @Test
  void find_escapes_areDecoded() {
    assertThat(find("{\"text\":\"a\\\"b\\\\c\\/d\\n\\t\"}")).isEqualTo("a\"b\\c/d\n\t");
    assertThat(find("{\"text\":\"caf\\u00e9 \\ud83d\\udc0b\"}")).isEqualTo("café 🐋");
    assertThat(find("{\"text\":\"naïve\"}")).isEqualTo("naïve");
  }

  @Test
  void find_spacesAroundColon_areAllowed() {
    assertThat(find("{\"text\" :  \"x\"}")).isEqualTo("x");
  }

  @Test
  void find_keyTextInsideAStringValue_isNotMistakenForTheKey() {
    assertThat(find("{\"note\":\"the \\\"text\\\": field\",\"text\":\"real\"}")).isEqualTo("real");
  }

  @Test
  void find_missingNullOrUnterminated_isFalse() {
    byte[] missing = "{\"delta\":{}}".getBytes(StandardCharsets.UTF_8);
    byte[] nul = "{\"text\":null}".getBytes(StandardCharsets.UTF_8);
    byte[] open = "{\"text\":\"abc".getBytes(StandardCharsets.UTF_8);
    assertThat(text.find(missing, missing.length)).isFalse();
    assertThat(text.find(nul, nul.length)).isFalse();
    assertThat(text.find(open, open.length)).isFalse();
  }
}
