package narwhal.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** {@link Json#withLastMember}: a splice that must write what the tree would have written. */
class JsonLastMemberTest {

  @ParameterizedTest
  @ValueSource(strings = {
      "{}",
      "{\"a\":1}",
      "{\"model\":\"m\",\"prompt\":[1,2,3],\"temperature\":0.10,\"big\":123456789012345678901234567890}",
      "{\"messages\":[{\"role\":\"user\",\"content\":\"h\\u00e9 \\\"q\\\" \\\\ \\u0001 \u4e2d\"}],\"o\":{\"}\":\"{\"}}"})
  void theSplice_isWhatJacksonWritesWithTheMemberSetLast(String object) throws Exception {
    ObjectNode tree = (ObjectNode) Json.mapper().readTree(object);
    ObjectNode value = (ObjectNode) Json.mapper().readTree("{\"remote_block_ids\":[1,2],\"flag\":true,\"h\":\"\u00e9\"}");

    byte[] spliced = Json.withLastMember(Json.compactBytes(tree), Json.memberName("kv_transfer_params"),
        Json.compactBytes(value));

    tree.set("kv_transfer_params", value);
    assertThat(new String(spliced, StandardCharsets.UTF_8)).isEqualTo(Json.compact(tree));
    assertThat(Json.mapper().readTree(spliced)).isEqualTo(tree);
  }

  @Test
  void notAnObjectsText_isRefused() {
    byte[] member = Json.memberName("k");
    for (String notAnObject : new String[] {"", "[]", "\"{}\"", "{", "{\"a\":1} "}) {
      assertThatThrownBy(() -> Json.withLastMember(notAnObject.getBytes(StandardCharsets.UTF_8), member,
          "1".getBytes(StandardCharsets.UTF_8)))
          .as(notAnObject).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void aNameThatNeedsEscaping_isRefused() {
    assertThat(new String(Json.memberName("kv_transfer_params"), StandardCharsets.UTF_8))
        .isEqualTo("\"kv_transfer_params\":");
    for (String name : new String[] {"a\"b", "a\\b", "a\nb"}) {
      assertThatThrownBy(() -> Json.memberName(name)).as(name).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
