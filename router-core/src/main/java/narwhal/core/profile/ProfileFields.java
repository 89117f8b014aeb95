package narwhal.core.profile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Typed reads of one JSON object of the profiles file, in the fleet file's manner: each read names
 * a key (which marks it known); a missing or wrong value is recorded as a problem with its JSON
 * path and the read returns null, so one pass reports everything; {@link #finish()} reports every
 * other key not starting with {@code _} as unknown.
 */
final class ProfileFields {

  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final int MAX_SHOWN_CHARS = 80;

  private final ObjectNode node;
  private final String path;
  private final List<String> problems;
  private final Set<String> known = new HashSet<>();

  ProfileFields(ObjectNode node, String path, List<String> problems) {
    this.node = node;
    this.path = path;
    this.problems = problems;
  }

  String path() {
    return path;
  }

  /** The problems of the whole file, shared by every object read from it. */
  List<String> problems() {
    return problems;
  }

  void error(String key, String message) {
    problems.add(child(path, key) + ": " + message);
  }

  @Nullable JsonNode raw(String key) {
    known.add(key);
    return node.get(key);
  }

  /** The object under {@code key}, which must be present. */
  @Nullable ProfileFields object(String key) {
    JsonNode v = raw(key);
    if (v == null) {
      error(key, "required: an object");
      return null;
    }
    if (!v.isObject()) {
      error(key, "must be an object, got " + show(v));
      return null;
    }
    return new ProfileFields((ObjectNode) v, child(path, key), problems);
  }

  /** A non-blank string that must be present. */
  @Nullable String requiredString(String key) {
    JsonNode v = raw(key);
    if (v == null) {
      error(key, "required: a non-empty string");
      return null;
    }
    if (!v.isTextual() || v.textValue().isBlank()) {
      error(key, "must be a non-empty string, got " + show(v));
      return null;
    }
    return v.textValue();
  }

  /** A finite number >= 0 that must be present. */
  @Nullable Double nonNegative(String key) {
    JsonNode v = raw(key);
    if (v == null) {
      error(key, "required: a number >= 0");
      return null;
    }
    if (!v.isNumber() || !Double.isFinite(v.doubleValue()) || v.doubleValue() < 0) {
      error(key, "must be a number >= 0, got " + show(v));
      return null;
    }
    return v.doubleValue();
  }

  /** An integer >= {@code min} (at most {@code max}) that must be present. */
  @Nullable Long integer(String key, long min, long max) {
    JsonNode v = raw(key);
    if (v == null) {
      error(key, "required: an integer >= " + min);
      return null;
    }
    // 2.0 is not an integer and true is not a number: the file says what it means.
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
      error(key, "must be an integer " + (max == Long.MAX_VALUE ? ">= " + min : "from " + min + " to " + max)
          + ", got " + show(v));
      return null;
    }
    return v.longValue();
  }

  /**
   * An engine's process generation: a non-empty string or an integer (kept as its decimal text,
   * as attestation documents may carry either), or JSON null for "reported none". The key must be
   * present, so a row never silently loses its binding.
   *
   * @return the generation, or null for JSON null and for a problem (then {@code ok[0]} is false)
   */
  @Nullable String generation(String key, boolean[] ok) {
    JsonNode v = raw(key);
    ok[0] = true;
    if (v == null) {
      error(key, "required: the engine's process generation (a string, an integer, or null when it reported none)");
      ok[0] = false;
      return null;
    }
    if (v.isNull()) {
      return null;
    }
    if (v.isTextual() && !v.textValue().isBlank()) {
      return v.textValue();
    }
    if (v.isIntegralNumber()) {
      return v.bigIntegerValue().toString();
    }
    error(key, "must be a non-empty string, an integer or null, got " + show(v));
    ok[0] = false;
    return null;
  }

  /** A UTC timestamp in ISO-8601 ({@code 2026-12-01T21:22:22Z}) that must be present. */
  @Nullable Instant utcInstant(String key) {
    JsonNode v = raw(key);
    if (v == null) {
      error(key, "required: a UTC time such as \"2026-12-01T21:22:22Z\"");
      return null;
    }
    if (v.isTextual() && v.textValue().endsWith("Z")) {
      try {
        return Instant.parse(v.textValue());
      } catch (DateTimeParseException e) {
        // reported below
      }
    }
    error(key, "must be a UTC time such as \"2026-12-01T21:22:22Z\", got " + show(v));
    return null;
  }

  /** Reports every key never read that is not a {@code _} comment. */
  void finish() {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!name.startsWith("_") && !known.contains(name)) {
        problems.add(child(path, name) + ": unknown key");
      }
    }
  }

  static String child(String parent, String key) {
    return PLAIN_KEY.matcher(key).matches() ? parent + "." + key : parent + "[" + TextNode.valueOf(key) + "]";
  }

  static String index(String parent, int index) {
    return parent + "[" + index + "]";
  }

  /** The value as compact JSON, shortened when long. */
  static String show(JsonNode value) {
    String text = value.toString();
    return text.length() <= MAX_SHOWN_CHARS ? text : text.substring(0, MAX_SHOWN_CHARS) + "…";
  }
}
