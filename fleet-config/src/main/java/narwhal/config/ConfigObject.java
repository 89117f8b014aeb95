package narwhal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Typed reads of one JSON object of the fleet file. Each read names a key, which marks it known;
 * {@link #finish()} then reports every other key that does not start with {@code _} as unknown.
 * A value of the wrong type or out of range is recorded as a problem (with its path) and the read
 * returns the default, so parsing always carries on.
 *
 * <p>String reads substitute a whole-string {@code ${VAR}} reference from the environment. JSON
 * null counts as absent only for the {@code optional…} reads; elsewhere it is a type error.
 */
final class ConfigObject {

  private final ObjectNode node;
  private final String path;
  private final ParseContext ctx;
  private final Set<String> known = new HashSet<>();
  private final Set<String> invalid = new HashSet<>();

  ConfigObject(ObjectNode node, String path, ParseContext ctx) {
    this.node = node;
    this.path = path;
    this.ctx = ctx;
  }

  /** A reader over an empty object: every read yields its default. */
  static ConfigObject empty(String path, ParseContext ctx) {
    return new ConfigObject(JsonNodeFactory.instance.objectNode(), path, ctx);
  }

  String path() {
    return path;
  }

  String pathOf(String key) {
    return JsonPaths.child(path, key);
  }

  ParseContext context() {
    return ctx;
  }

  /** Records a problem with {@code key}, so later cross-key checks can skip it. */
  void error(String key, String message) {
    invalid.add(key);
    ctx.error(pathOf(key), message);
  }

  /** True when the key was read without a problem (absent keys are valid). */
  boolean isValid(String key) {
    return !invalid.contains(key);
  }

  /** The raw value under {@code key} (JSON null included), or null when absent. */
  @Nullable JsonNode raw(String key) {
    known.add(key);
    return node.get(key);
  }

  /** True when the key is present with a non-null value. */
  boolean isSet(String key) {
    JsonNode v = raw(key);
    return v != null && !v.isNull();
  }

  /** The object under {@code key}; an empty reader when it is absent or not an object. */
  ConfigObject object(String key) {
    JsonNode v = raw(key);
    if (v != null && v.isObject()) {
      return new ConfigObject((ObjectNode) v, pathOf(key), ctx);
    }
    if (v != null) {
      error(key, "must be an object, got " + JsonPaths.show(v));
    }
    return empty(pathOf(key), ctx);
  }

  String string(String key, String defaultValue) {
    JsonNode v = raw(key);
    if (v == null) {
      return defaultValue;
    }
    String s = text(key, v, "a string");
    return s == null ? defaultValue : s;
  }

  /** A non-empty string, or null when absent or JSON null. */
  @Nullable String optionalString(String key) {
    JsonNode v = raw(key);
    if (v == null || v.isNull()) {
      return null;
    }
    String s = text(key, v, "a non-empty string");
    if (s != null && s.isEmpty()) {
      error(key, "must be a non-empty string, got \"\"");
      return null;
    }
    return s;
  }

  /** A non-empty string that must be present; null (with the problem recorded) otherwise. */
  @Nullable String requiredString(String key) {
    JsonNode v = raw(key);
    if (v == null) {
      error(key, "required: a non-empty string");
      return null;
    }
    String s = text(key, v, "a non-empty string");
    if (s != null && s.isBlank()) {
      error(key, "must be a non-empty string, got " + JsonPaths.show(v));
      return null;
    }
    return s;
  }

  int integer(String key, int defaultValue, int min) {
    Long v = integral(key, min, Integer.MAX_VALUE);
    return v == null ? defaultValue : v.intValue();
  }

  long longInteger(String key, long defaultValue, long min) {
    Long v = integral(key, min, Long.MAX_VALUE);
    return v == null ? defaultValue : v;
  }

  /** An integer >= min, or null when absent, JSON null or invalid. */
  @Nullable Integer optionalInteger(String key, int min) {
    JsonNode v = raw(key);
    if (v == null || v.isNull()) {
      return null;
    }
    Long value = integral(key, min, Integer.MAX_VALUE);
    return value == null ? null : value.intValue();
  }

  double number(String key, double defaultValue, NumberRange range) {
    Double v = numeric(key, range);
    return v == null ? defaultValue : v;
  }

  /** A number in range, or null when absent, JSON null or invalid. */
  @Nullable Double optionalNumber(String key, NumberRange range) {
    JsonNode v = raw(key);
    if (v == null || v.isNull()) {
      return null;
    }
    return numeric(key, range);
  }

  /** A number in range that must be present; null (with the problem recorded) otherwise. */
  @Nullable Double requiredNumber(String key, NumberRange range) {
    if (raw(key) == null) {
      error(key, "required: " + range.description());
      return null;
    }
    return numeric(key, range);
  }

  boolean bool(String key, boolean defaultValue) {
    Boolean v = optionalBool(key, false);
    return v == null ? defaultValue : v;
  }

  /** A boolean, or null when absent, JSON null or invalid. */
  @Nullable Boolean optionalBool(String key) {
    return optionalBool(key, true);
  }

  /**
   * One of a fixed set of spellings, mapped to its value. Null when absent (or JSON null, if
   * {@code nullable}) and when invalid, with the problem recorded in that case.
   */
  <T> @Nullable T choice(String key, Map<String, T> options, boolean nullable) {
    JsonNode v = raw(key);
    if (v == null || (nullable && v.isNull())) {
      return null;
    }
    String expected = "one of " + String.join(", ", options.keySet());
    String s = text(key, v, expected);
    if (s == null) {
      return null;
    }
    T value = options.get(s);
    if (value == null) {
      error(key, "must be " + expected + ", got " + JsonPaths.show(textNode(s)));
    }
    return value;
  }

  /** Every key of the object that is not a {@code _} comment, in file order (each counts as read). */
  java.util.List<String> keys() {
    java.util.List<String> out = new java.util.ArrayList<>();
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!name.startsWith("_")) {
        known.add(name);
        out.add(name);
      }
    }
    return out;
  }

  /** Reports every key that was never read and is not a {@code _} comment. */
  void finish() {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (name.startsWith("_") || known.contains(name)) {
        continue;
      }
      String hint = suggestion(name);
      ctx.error(
          JsonPaths.child(path, name),
          "unknown key" + (hint == null ? "" : " (did you mean " + hint + "?)"));
    }
  }

  private @Nullable Boolean optionalBool(String key, boolean nullIsAbsent) {
    JsonNode v = raw(key);
    if (v == null || (nullIsAbsent && v.isNull())) {
      return null;
    }
    if (!v.isBoolean()) {
      error(key, "must be true or false, got " + JsonPaths.show(v));
      return null;
    }
    return v.booleanValue();
  }

  private @Nullable String text(String key, JsonNode v, String expected) {
    if (!v.isTextual()) {
      error(key, "must be " + expected + ", got " + JsonPaths.show(v));
      return null;
    }
    String s = ctx.substitute(pathOf(key), v.textValue());
    if (s == null) {
      invalid.add(key);
    }
    return s;
  }

  private @Nullable Long integral(String key, long min, long max) {
    JsonNode v = raw(key);
    if (v == null) {
      return null;
    }
    // Booleans are not numbers here, and 2.0 is not an integer: the file says what it means.
    boolean fits = v.isIntegralNumber() && v.canConvertToLong();
    long value = fits ? v.longValue() : 0;
    if (!fits || value < min || value > max) {
      // Name the upper bound only when it is what was broken; it is rarely of interest.
      boolean tooLarge = v.isIntegralNumber() && (!fits || value > max);
      String bound =
          tooLarge && max != Long.MAX_VALUE
              ? "an integer from " + min + " to " + max
              : "an integer >= " + min;
      error(key, "must be " + bound + ", got " + JsonPaths.show(v));
      return null;
    }
    return value;
  }

  private @Nullable Double numeric(String key, NumberRange range) {
    JsonNode v = raw(key);
    if (v == null) {
      return null;
    }
    if (!v.isNumber() || !range.contains(v.doubleValue())) {
      error(key, "must be " + range.description() + ", got " + JsonPaths.show(v));
      return null;
    }
    return v.doubleValue();
  }

  private @Nullable String suggestion(String unknown) {
    // A typo of a known key is the usual cause; name the closest one within two edits.
    return known.stream()
        .filter(k -> editDistance(unknown, k) <= 2)
        .sorted()
        .min((a, b) -> Integer.compare(editDistance(unknown, a), editDistance(unknown, b)))
        .orElse(null);
  }

  private static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  private static JsonNode textNode(String s) {
    return JsonNodeFactory.instance.textNode(s);
  }

  /** Spellings joined for messages, e.g. {@code "prefill, decode, both"}. */
  static String joined(Set<String> names) {
    return names.stream().sorted().collect(Collectors.joining(", "));
  }
}
