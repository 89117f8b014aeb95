package narwhal.sim;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.Map;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * A {@code --gpu-profile} file: a JSON object with the gpu timing mode's flags as snake_case keys,
 * e.g. {@code {"decode_base_ms": 8, "kv_capacity_tokens": 200000, "jitter": 0.05}}. Every key is
 * optional; a flag given on the command line overrides the file's value. Keys starting with
 * {@code _} are comments. Anything else (an unknown key, a wrong type, a duplicate key, text that
 * is not JSON) is refused with an {@link IllegalArgumentException} that names the file and the key.
 */
final class GpuProfileFile {

  /** The file's keys; each is a flag's name in snake_case. */
  enum Key {
    STEP_TOKEN_BUDGET("step_token_budget", true),
    MAX_NUM_SEQS("max_num_seqs", true),
    PREFILL_BASE_MS("prefill_base_ms", false),
    PREFILL_MS_PER_TOKEN("prefill_ms_per_token", false),
    PREFILL_MS_PER_TOKEN_SQ("prefill_ms_per_token_sq", false),
    DECODE_BASE_MS("decode_base_ms", false),
    DECODE_MS_PER_RESIDENT_TOKEN("decode_ms_per_resident_token", false),
    DECODE_MS_PER_SEQ("decode_ms_per_seq", false),
    KV_CAPACITY_TOKENS("kv_capacity_tokens", true),
    MAX_MODEL_LEN("max_model_len", true),
    KV_MS_PER_TOKEN("kv_ms_per_token", false),
    JITTER("jitter", false);

    final String json;
    final boolean integer;

    Key(String json, boolean integer) {
      this.json = json;
      this.integer = integer;
    }

    static @Nullable Key named(String json) {
      for (Key key : values()) {
        if (key.json.equals(json)) {
          return key;
        }
      }
      return null;
    }
  }

  private static final ObjectReader READER =
      SimJson.MAPPER.reader().with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private final Map<Key, Number> values;

  private GpuProfileFile(Map<Key, Number> values) {
    this.values = values;
  }

  /** An empty profile: every value from the flags or the defaults. */
  static GpuProfileFile none() {
    return new GpuProfileFile(new EnumMap<>(Key.class));
  }

  static GpuProfileFile read(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("gpu profile " + file + ": no such file", e);
    } catch (MalformedInputException e) {
      throw new IllegalArgumentException("gpu profile " + file + ": not UTF-8 text", e);
    } catch (IOException e) {
      throw new IllegalArgumentException("gpu profile " + file + ": cannot read it: " + e.getMessage(), e);
    }
    return parse(text, "gpu profile " + file);
  }

  /** Parses {@code text}; errors start with {@code source}. */
  static GpuProfileFile parse(String text, String source) {
    JsonNode root;
    try {
      root = READER.readTree(text);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
      throw new IllegalArgumentException(source + ": not valid JSON" + where + ": " + e.getOriginalMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(source + ": expected a JSON object of settings, e.g. {\"decode_base_ms\": 8}");
    }
    Map<Key, Number> values = new EnumMap<>(Key.class);
    for (Iterator<Map.Entry<String, JsonNode>> fields = root.fields(); fields.hasNext(); ) {
      Map.Entry<String, JsonNode> field = fields.next();
      String name = field.getKey();
      if (name.startsWith("_")) {
        continue;
      }
      Key key = Key.named(name);
      if (key == null) {
        throw new IllegalArgumentException(source + ": unknown key '" + name + "' (known: " + knownKeys() + ")");
      }
      values.put(key, value(source, key, field.getValue()));
    }
    return new GpuProfileFile(values);
  }

  private static Number value(String source, Key key, JsonNode node) {
    if (key.integer) {
      if (!node.isIntegralNumber() || !node.canConvertToInt()) {
        throw new IllegalArgumentException(source + ": '" + key.json + "' must be an integer, got " + node);
      }
      return node.intValue();
    }
    if (!node.isNumber()) {
      throw new IllegalArgumentException(source + ": '" + key.json + "' must be a number, got " + node);
    }
    return node.doubleValue();
  }

  private static String knownKeys() {
    StringJoiner names = new StringJoiner(", ");
    for (Key key : Key.values()) {
      names.add(key.json);
    }
    return names.toString();
  }

  /** {@code flag} when given, else the file's value, else {@code fallback}. */
  double pick(@Nullable Double flag, Key key, double fallback) {
    if (flag != null) {
      return flag;
    }
    Number value = values.get(key);
    return value != null ? value.doubleValue() : fallback;
  }

  /** {@code flag} when given, else the file's value, else {@code fallback}. */
  int pick(@Nullable Integer flag, Key key, int fallback) {
    if (flag != null) {
      return flag;
    }
    Number value = values.get(key);
    return value != null ? value.intValue() : fallback;
  }
}
