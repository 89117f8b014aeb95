package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One parsed fault: {@code name} or {@code name=value[,key=value...]}.
 *
 * <p>Besides each fault's own options (see {@link FaultKind#options()}) every fault takes the
 * modifiers {@code count=K} (apply to the first K matching requests only) and {@code
 * phase=prefill|decode}. {@code fail-first=K,then=SPEC} is another spelling of {@code
 * SPEC,count=K}; everything after {@code then=} is the inner spec. A {@code message=} value may
 * contain commas: a comma-separated part that is not a known {@code key=} continues the message.
 *
 * @param kind the fault
 * @param value the value after {@code name=}: a token count, milliseconds ({@link #FOREVER} for
 *     "forever") or an HTTP status; 0 when the fault takes no value or a text value
 * @param argument the value after {@code name=} when it is text ({@code kv-extra-field}'s {@code
 *     NAME=VALUE}), else null
 * @param options the fault's own options, validated
 * @param phase the phase it is restricted to, or null for both
 * @param count how many matching requests it applies to, or {@link #UNLIMITED}
 * @param text the spec as written
 */
record FaultSpec(
    FaultKind kind,
    long value,
    @Nullable String argument,
    Map<String, String> options,
    @Nullable RequestPhase phase,
    int count,
    String text) {

  /** Milliseconds meaning "never resume". */
  static final long FOREVER = Long.MAX_VALUE;

  /** A count meaning "every matching request". */
  static final int UNLIMITED = -1;

  /** Any silence at least this long is treated as forever (no timer is scheduled). */
  private static final long FOREVER_THRESHOLD_MILLIS = Integer.MAX_VALUE;

  private static final Set<String> OPTION_KEYS =
      Set.of("message", "code", "ms", "metadata-every", "comments", "count", "phase", "then");

  FaultSpec {
    options = Map.copyOf(options);
  }

  /** Parses one spec; throws {@link IllegalArgumentException} naming what is wrong. */
  static FaultSpec parse(String rawText) {
    String text = rawText.trim();
    if (text.isEmpty()) {
      throw new IllegalArgumentException("empty fault spec");
    }
    try {
      return parseChecked(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad fault spec '" + text + "': " + e.getMessage(), e);
    }
  }

  private static FaultSpec parseChecked(String text) {
    String[] parts = text.split(",", -1);
    String head = parts[0].trim();
    int eq = head.indexOf('=');
    String name = eq < 0 ? head : head.substring(0, eq).trim();
    @Nullable String rawValue = eq < 0 ? null : head.substring(eq + 1).trim();
    // A field value is JSON, which may contain commas: parts up to the first option continue it.
    boolean valueTakesCommas = name.equals(FaultKind.KV_EXTRA_FIELD.wireName()) && rawValue != null;

    Map<String, String> options = new LinkedHashMap<>();
    @Nullable String thenSpec = null;
    @Nullable String lastKey = null;
    for (int i = 1; i < parts.length; i++) {
      String part = parts[i];
      int partEq = part.indexOf('=');
      String key = partEq < 0 ? "" : part.substring(0, partEq).trim();
      if (OPTION_KEYS.contains(key)) {
        String optionValue = part.substring(partEq + 1);
        if (key.equals("then")) {
          // The inner spec is everything that follows, commas included.
          thenSpec = String.join(",", Arrays.copyOfRange(parts, i, parts.length));
          thenSpec = thenSpec.substring(thenSpec.indexOf('=') + 1);
          break;
        }
        if (options.containsKey(key)) {
          throw new IllegalArgumentException("option '" + key + "' given twice");
        }
        options.put(key, key.equals("message") ? optionValue : optionValue.trim());
        lastKey = key;
      } else if ("message".equals(lastKey)) {
        options.put("message", options.get("message") + "," + part);
      } else if (valueTakesCommas && lastKey == null) {
        rawValue = rawValue + "," + part;
      } else {
        throw new IllegalArgumentException("unexpected '" + part + "'");
      }
    }

    @Nullable RequestPhase phase =
        options.containsKey("phase") ? RequestPhase.parse(options.remove("phase")) : null;
    int count = options.containsKey("count") ? parseCount(options.remove("count")) : UNLIMITED;

    if (name.equals("fail-first")) {
      return failFirst(text, rawValue, options, thenSpec, phase, count);
    }
    if (thenSpec != null) {
      throw new IllegalArgumentException("'then=' only goes with fail-first");
    }
    FaultKind kind = FaultKind.byName(name);
    for (String key : options.keySet()) {
      if (!kind.options().contains(key)) {
        throw new IllegalArgumentException(
            "option '" + key + "' does not apply to " + kind.wireName());
      }
    }
    if (kind.valueKind() == FaultKind.ValueKind.FIELD) {
      KvExtraFields.parseAssignment(rawValue == null ? "" : rawValue);
      validateOptions(options);
      return new FaultSpec(kind, 0, rawValue, options, phase, count, text);
    }
    long value = parseValue(kind, rawValue);
    validateOptions(options);
    return new FaultSpec(kind, value, null, options, phase, count, text);
  }

  private static FaultSpec failFirst(
      String text,
      @Nullable String rawValue,
      Map<String, String> options,
      @Nullable String thenSpec,
      @Nullable RequestPhase phase,
      int count) {
    if (rawValue == null || thenSpec == null) {
      throw new IllegalArgumentException("expected fail-first=K,then=SPEC");
    }
    if (!options.isEmpty() || count != UNLIMITED) {
      throw new IllegalArgumentException("fail-first takes only then= and phase=");
    }
    FaultSpec inner = parse(thenSpec);
    @Nullable RequestPhase effectivePhase = phase != null ? phase : inner.phase();
    return new FaultSpec(inner.kind(), inner.value(), inner.argument(), inner.options(), effectivePhase,
        parseCount(rawValue), text);
  }

  private static long parseValue(FaultKind kind, @Nullable String rawValue) {
    if (kind.valueKind() == FaultKind.ValueKind.NONE) {
      if (rawValue != null) {
        throw new IllegalArgumentException(kind.wireName() + " takes no value");
      }
      return 0;
    }
    if (rawValue == null || rawValue.isEmpty()) {
      throw new IllegalArgumentException(kind.wireName() + " needs a value");
    }
    switch (kind.valueKind()) {
      case COUNT:
        return parseCount(rawValue);
      case MILLIS:
        return parseNonNegative(rawValue, "milliseconds");
      case MILLIS_OR_FOREVER:
        return parseMillisOrForever(rawValue);
      case HTTP_STATUS:
        return parseStatus(rawValue);
      case FIELD:
      default:
        throw new IllegalStateException(kind.valueKind().toString());
    }
  }

  private static void validateOptions(Map<String, String> options) {
    if (options.containsKey("code")) {
      parseErrorCode(options.get("code"));
    }
    if (options.containsKey("ms")) {
      parseMillisOrForever(options.get("ms"));
    }
    if (options.containsKey("metadata-every")
        && parseNonNegative(options.get("metadata-every"), "metadata-every") == 0) {
      throw new IllegalArgumentException("metadata-every must be > 0");
    }
    if (options.containsKey("comments")
        && parseNonNegative(options.get("comments"), "comments") == 0) {
      throw new IllegalArgumentException("comments must be > 0 (the interval in ms between keep-alive comments)");
    }
  }

  private static int parseCount(String raw) {
    long parsed = parseNonNegative(raw, "count");
    if (parsed > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("count too large: " + raw);
    }
    return (int) parsed;
  }

  private static int parseStatus(String raw) {
    long parsed = parseNonNegative(raw, "HTTP status");
    if (parsed < 400 || parsed > 599) {
      throw new IllegalArgumentException("HTTP status must be 400..599, got " + raw);
    }
    return (int) parsed;
  }

  /**
   * An in-stream error's {@code code}: any integer (a JSON number, e.g. {@code 503} or {@code 200})
   * or text (a JSON string; quote it, {@code code="503"}, to get a string of digits), so a test can
   * give the router a code outside 400..599 or not an integer at all.
   */
  static JsonNode parseErrorCode(String raw) {
    String text = raw.trim();
    if (text.isEmpty()) {
      throw new IllegalArgumentException(
          "code needs a value: an integer (e.g. 503) or text (e.g. oops, or \"503\" for a string)");
    }
    if (text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"")) {
      return TextNode.valueOf(text.substring(1, text.length() - 1));
    }
    if (text.matches("[+-]?\\d+")) {
      try {
        return LongNode.valueOf(Long.parseLong(text));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("code " + text + " does not fit in 64 bits; quote it for a string", e);
      }
    }
    return TextNode.valueOf(text);
  }

  /** The HTTP status an error code stands for: the code when an integer in 400..599, else 500. */
  static int statusFor(JsonNode code) {
    if (code.isIntegralNumber() && code.canConvertToInt() && code.intValue() >= 400 && code.intValue() <= 599) {
      return code.intValue();
    }
    return 500;
  }

  private static long parseMillisOrForever(String raw) {
    if (raw.equals("forever")) {
      return FOREVER;
    }
    long millis = parseNonNegative(raw, "milliseconds");
    return millis >= FOREVER_THRESHOLD_MILLIS ? FOREVER : millis;
  }

  private static long parseNonNegative(String raw, String what) {
    try {
      long parsed = Long.parseLong(raw.trim());
      if (parsed < 0) {
        throw new IllegalArgumentException(what + " must be >= 0, got " + raw);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " must be a whole number, got '" + raw + "'", e);
    }
  }

  /** True when this fault applies to a request of {@code requestPhase} (null: unknown phase). */
  boolean matches(@Nullable RequestPhase requestPhase) {
    return phase == null || phase == requestPhase;
  }

  String option(String key, String fallback) {
    return options.getOrDefault(key, fallback);
  }

  int intOption(String key, int fallback) {
    String raw = options.get(key);
    return raw == null ? fallback : Integer.parseInt(raw.trim());
  }

  /** {@code error-after}'s code as the JSON value the error event carries; 500 when not given. */
  JsonNode errorCode() {
    String raw = options.get("code");
    return raw == null ? LongNode.valueOf(500) : parseErrorCode(raw);
  }

  long millisOption(String key, long fallback) {
    String raw = options.get(key);
    return raw == null ? fallback : parseMillisOrForever(raw.trim());
  }
}
