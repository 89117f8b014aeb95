package narwhal.sim;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Extra opaque fields a prefill adds to its {@code kv_transfer_params}, written {@code NAME=VALUE}
 * ({@code --kv-extra-field}, the {@code kv-extra-field=NAME=VALUE} directive). A real runtime may
 * add fields the router does not know (a newer vLLM, a connector's private hints); the router must
 * carry them to the decode engine untouched, and these fields let a test prove it.
 */
final class KvExtraFields {

  private KvExtraFields() {}

  /**
   * Parses {@code NAME=VALUE}: VALUE is JSON when it parses as one whole JSON value ({@code 7},
   * {@code true}, {@code {"a":[1]}}, {@code "text"}), else the text as written; throws {@link
   * IllegalArgumentException} naming what is wrong.
   */
  static Map.Entry<String, JsonNode> parseAssignment(String assignment) {
    int eq = assignment.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException("expected NAME=VALUE (e.g. x_hint={\"tier\":2}), got '" + assignment + "'");
    }
    String name = assignment.substring(0, eq).trim();
    if (name.isEmpty()) {
      throw new IllegalArgumentException("the field name before '=' is empty in '" + assignment + "'");
    }
    return new AbstractMap.SimpleImmutableEntry<>(name, parseValue(assignment.substring(eq + 1)));
  }

  static JsonNode parseValue(String text) {
    try {
      // Trailing tokens must fail, or 0.11.0 would read as the number 0.11.
      JsonNode node = SimJson.MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(text);
      if (node != null && !node.isMissingNode()) {
        return node;
      }
    } catch (IOException e) {
      // Not JSON: the bare text, the common case on a command line.
    }
    return TextNode.valueOf(text);
  }

  /** An unmodifiable copy of {@code fields}; throws {@link IllegalArgumentException} on a blank name. */
  static Map<String, JsonNode> freeze(Map<String, JsonNode> fields) {
    Map<String, JsonNode> copy = new LinkedHashMap<>();
    fields.forEach((name, value) -> {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("a KV extra field name must not be blank");
      }
      // Deep copies: a JsonNode is mutable, and options are shared by every connection.
      copy.put(name, requireNonNull(value, "value of KV extra field " + name).deepCopy());
    });
    return Collections.unmodifiableMap(copy);
  }
}
