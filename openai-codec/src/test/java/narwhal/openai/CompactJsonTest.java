package narwhal.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The index is a fast path for Jackson's own output: whatever it accepts, a Jackson round trip
 * leaves unchanged, and Jackson's compact output is always accepted.
 */
class CompactJsonTest {

  private final CompactJson index = new CompactJson();

  @ParameterizedTest
  @ValueSource(strings = {
    "{}",
    "{\"a\":1}",
    "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\",\"choices\":"
        + "[{\"index\":0,\"text\":\" hi\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null,"
        + "\"prompt_token_ids\":null,\"token_ids\":[1,2]}],\"usage\":null}",
    "{\"t\":\"quote \\\" slash \\\\ nl \\n tab \\t cr \\r bs \\b ff \\f ctl \\u0001 \\u001F / é 😀\"}",
    "{\"n\":[0,-1,12345678901234567890123,1.5,1.50,-0.25,0.000001,0.000009,0.0,0.000000,123.000]}",
    "{\"b\":[true,false,null,[],{},[[{}]]]}",
    "{\"x\":[1E-7,1E+3,1.5E+10,-2.5E-8,0E+3,0E-7,1.25E-7]}",
    "{\"a\":{\"a\":{\"a\":1}},\"b\":{\"a\":2}}"
  })
  void acceptsCanonicalText_whichJacksonLeavesUnchanged(String json) throws Exception {
    assertThat(index.index(json)).isTrue();
    assertThat(roundTrip(json)).isEqualTo(json);
  }

  @ParameterizedTest
  @ValueSource(strings = {
    "", "[]", "\"s\"", "1", " {}", "{} ", "{ }", "{\"a\": 1}", "{\"a\":1,}", "{\"a\":1}x", "{\"a\":1}{}",
    "{\"a\":\"\\/\"}", "{\"a\":\"\\u0041\"}", "{\"a\":\"\\u001f\"}", "{\"a\":\"\\u000A\"}", "{\"a\":\"\\x\"}",
    "{\"a\":\"raw\ttab\"}", "{\"a\":\"\\ud83d\"}", "{\"a\":\"\ud83d\"}", "{\"a\\u0062\":1}",
    "{\"a\":1e5}", "{\"a\":1.0E5}", "{\"a\":-0}", "{\"a\":-0.0}", "{\"a\":0.0000001}", "{\"a\":0.0000000}",
    "{\"a\":1e+3}", "{\"a\":1E3}", "{\"a\":1E+03}", "{\"a\":1E-3}", "{\"a\":15E+3}", "{\"a\":0.5E-7}",
    "{\"a\":-0E+3}", "{\"a\":0E-3}", "{\"a\":1.5E+1}", "{\"a\":0.0E+3}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":+1}", "{\"a\":-}", "{\"a\":NaN}",
    "{\"a\":1,\"a\":2}", "{\"o\":{\"x\":1,\"y\":2,\"x\":3}}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\"}", "{\"a\":[1,2}",
    "{\"a\":\"unterminated}"
  })
  void refusesEverythingElse(String json) {
    assertThat(index.index(json)).isFalse();
    assertThat(index.root()).isEqualTo(CompactJson.NONE);
  }

  @Test
  void jacksonOutputIsAlwaysAccepted_andAcceptedTextAlwaysSurvivesARoundTrip() throws Exception {
    Random random = new Random(42);
    int accepted = 0;
    for (int i = 0; i < 3000; i++) {
      String raw = randomObject(random, 0);
      String canonical;
      try {
        canonical = roundTrip(raw);
      } catch (JsonProcessingException e) {
        assertThat(index.index(raw)).as(raw).isFalse(); // Jackson refuses it (duplicate keys): so must we
        continue;
      }
      assertThat(index.index(canonical)).as(canonical).isTrue();
      if (index.index(raw)) {
        accepted++;
        assertThat(canonical).as(raw).isEqualTo(raw);
      }
    }
    assertThat(accepted).isPositive();
  }

  @Test
  void longValue_ofAnAcceptedExponentInteger_isTheFallback() {
    // 1E+5 is canonical (a round trip keeps it), but no long spelling: the caller falls back.
    assertThat(index.index("{\"n\":1E+5,\"m\":-2.5E-8}")).isTrue();
    assertThat(index.longValue(index.member(index.root(), "n"), -1)).isEqualTo(-1);
    assertThat(index.longValue(index.member(index.root(), "m"), -1)).isEqualTo(-1);
  }

  @Test
  void navigatesMembersAndReadsValues() {
    String json = "{\"id\":\"x\",\"choices\":[{\"index\":3,\"text\":\"a\\\"b\\n\\u0001\"},7],"
        + "\"usage\":{\"total_tokens\":12345678901},\"big\":123456789012345678901,\"f\":1.5,\"e\":\"\"}";
    assertThat(index.index(json)).isTrue();
    int root = index.root();
    int choices = index.member(root, "choices");
    assertThat(index.kind(choices)).isEqualTo(CompactJson.ARRAY);
    int choice = index.first(choices);
    assertThat(index.kind(choice)).isEqualTo(CompactJson.OBJECT);
    assertThat(index.kind(index.next(choice))).isEqualTo(CompactJson.NUMBER);
    assertThat(index.next(index.next(choice))).isEqualTo(CompactJson.NONE);
    assertThat(index.longValue(index.member(choice, "index"), -1)).isEqualTo(3);
    assertThat(index.string(index.member(choice, "text"))).isEqualTo("a\"b\n\u0001");
    assertThat(index.string(index.member(root, "id"))).isEqualTo("x");
    assertThat(index.longValue(index.member(index.member(root, "usage"), "total_tokens"), -1))
        .isEqualTo(12345678901L);
    assertThat(index.longValue(index.member(root, "big"), -1)).isEqualTo(-1);
    assertThat(index.longValue(index.member(root, "f"), -1)).isEqualTo(-1);
    assertThat(index.isEmptyString(index.member(root, "e"))).isTrue();
    assertThat(index.json(index.member(root, "usage"))).isEqualTo("{\"total_tokens\":12345678901}");
    int usage = index.member(root, "usage");
    assertThat(json.substring(index.keyStart(usage), index.keyEnd(usage))).isEqualTo("\"usage\"");
    assertThat(index.member(root, "missing")).isEqualTo(CompactJson.NONE);
    assertThat(index.member(choices, "index")).isEqualTo(CompactJson.NONE);
  }

  @Test
  void deepNestingIsLeftToJackson() {
    String deep = "{\"a\":" + "[".repeat(70) + "]".repeat(70) + "}";
    assertThat(index.index(deep)).isFalse();
    String shallow = "{\"a\":" + "[".repeat(40) + "]".repeat(40) + "}";
    assertThat(index.index(shallow)).isTrue();
  }

  private static String roundTrip(String json) throws JsonProcessingException {
    return Json.compact(Json.mapper().readTree(json));
  }

  // Random JSON text, often canonical, often not: whitespace, escape spellings, number spellings
  // and repeated keys all vary.
  private static String randomObject(Random r, int depth) {
    StringBuilder s = new StringBuilder("{");
    int n = r.nextInt(depth == 0 ? 6 : 4);
    String[] keys = {"a", "b", "id", "text", "k"};
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        s.append(',');
      }
      if (r.nextInt(30) == 0) {
        s.append(' ');
      }
      s.append('"').append(keys[r.nextInt(keys.length)]).append(r.nextInt(8)).append("\":");
      s.append(randomValue(r, depth + 1));
    }
    return s.append('}').toString();
  }

  private static String randomValue(Random r, int depth) {
    int pick = r.nextInt(depth > 3 ? 4 : 6);
    switch (pick) {
      case 0:
        return randomString(r);
      case 1:
        return randomNumber(r);
      case 2:
        return new String[] {"true", "false", "null"}[r.nextInt(3)];
      case 3:
        return randomString(r);
      case 4: {
        StringBuilder s = new StringBuilder("[");
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
          s.append(i > 0 ? "," : "").append(randomValue(r, depth + 1));
        }
        return s.append(']').toString();
      }
      default:
        return randomObject(r, depth);
    }
  }

  private static String randomString(Random r) {
    String[] pieces = {"a", " ", "é", "😀", "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\u0001", "\\u001F",
      "\\u001f", "\\u0041", "\\u000A", "\\b", "\\f", "\\r", "\u007f", "\u2028", "\\uD83D\\uDE00"};
    StringBuilder s = new StringBuilder("\"");
    int n = r.nextInt(5);
    for (int i = 0; i < n; i++) {
      s.append(pieces[r.nextInt(pieces.length)]);
    }
    return s.append('"').toString();
  }

  private static String randomNumber(Random r) {
    String[] numbers = {"0", "-0", "7", "-12", "123456789012345678901234567890", "1.5", "1.50", "-0.5", "0.0",
      "-0.0", "0.000001", "0.0000001", "0.000000", "0.0000000", "0.00001234", "1e3", "1E+3", "2.5e-3", "10.0",
      "-3.25", "0.10"};
    return numbers[r.nextInt(numbers.length)];
  }

  @Test
  void sameStringAgain_keepsItsIndex_andAnEqualCopyIsIndexedAfresh() {
    String chunk = "{\"a\":{\"b\":[1,2]},\"c\":\"x\"}";
    assertThat(index.index(chunk)).isTrue();
    int c = index.member(index.root(), "c");
    assertThat(index.index(chunk)).isTrue();
    assertThat(index.string(index.member(index.root(), "c"))).isEqualTo("x");
    assertThat(index.member(index.root(), "c")).isEqualTo(c);
    String refused = "{\"a\": 1}";
    assertThat(index.index(refused)).isFalse();
    assertThat(index.index(refused)).isFalse();
    assertThat(index.root()).isEqualTo(CompactJson.NONE);
    // An equal but distinct string is a new document: it is indexed, not taken from the memo.
    assertThat(index.index(new String(chunk))).isTrue();
    assertThat(index.string(index.member(index.root(), "c"))).isEqualTo("x");
  }
}
