package narwhal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.regex.Pattern;

/** JSON path spelling ({@code $.engines[1].role}) and value rendering for error messages. */
final class JsonPaths {

  static final String ROOT = "$";

  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final int MAX_SHOWN_CHARS = 80;

  private JsonPaths() {}

  static String child(String parent, String key) {
    if (PLAIN_KEY.matcher(key).matches()) {
      return parent + "." + key;
    }
    // Keys with spaces or punctuation are still spelt so the path can be read back unambiguously.
    return parent + "[" + TextNode.valueOf(key) + "]";
  }

  static String index(String parent, int index) {
    return parent + "[" + index + "]";
  }

  /** The value as compact JSON (strings quoted), shortened when long. */
  static String show(JsonNode value) {
    String text = value.isMissingNode() ? "nothing" : value.toString();
    if (text.length() <= MAX_SHOWN_CHARS) {
      return text;
    }
    return text.substring(0, MAX_SHOWN_CHARS) + "…";
  }

  /** A number as a person would write it: {@code 8} rather than {@code 8.0}. */
  static String show(double value) {
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return Long.toString((long) value);
    }
    return Double.toString(value);
  }
}
