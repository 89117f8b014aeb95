package narwhal.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Iterator;

/** JSON tree equality where numbers compare by value ({@code 1}, {@code 1.0}, {@code 1.00}). */
final class JsonEquivalence {

  private JsonEquivalence() {}

  static void assertEquivalent(JsonNode actual, JsonNode expected) {
    assertThat(equivalent(actual, expected))
        .as("expected %s%n but got  %s", expected, actual)
        .isTrue();
  }

  static boolean equivalent(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return new BigDecimal(a.asText()).compareTo(new BigDecimal(b.asText())) == 0;
    }
    if (a.getNodeType() != b.getNodeType()) {
      return false;
    }
    if (a.isObject()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (Iterator<String> names = a.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!b.has(name) || !equivalent(a.get(name), b.get(name))) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        if (!equivalent(a.get(i), b.get(i))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }
}
