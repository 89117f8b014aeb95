package narwhal.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The JSON values the replicas keep in etcd and send each other. Whatever a peer or etcd hands us
 * may be malformed or crafted: reading never throws, a value that is not a small JSON object reads
 * as null and the caller ignores it.
 */
final class ClusterJson {

  /** No value the replicas write comes near this; anything longer is refused unread. */
  static final int MAX_VALUE_CHARS = 1 << 20;

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  static {
    MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
        .maxNestingDepth(16).maxStringLength(64 * 1024).maxNumberLength(40).build());
  }

  private ClusterJson() {}

  static String write(Map<String, ?> value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a cluster value", e);
    }
  }

  /** The object {@code text} holds, or null when it is not one (or too long). */
  static @Nullable JsonNode object(@Nullable String text) {
    if (text == null || text.isEmpty() || text.length() > MAX_VALUE_CHARS) {
      return null;
    }
    try {
      JsonNode node = MAPPER.readTree(text);
      return node != null && node.isObject() ? node : null;
    } catch (JsonProcessingException | RuntimeException e) {
      return null;
    }
  }

  /** A text field, or null when absent or not text. */
  static @Nullable String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v != null && v.isTextual() ? v.textValue() : null;
  }

  /** A whole-number field, or {@code fallback}. */
  static long number(JsonNode node, String field, long fallback) {
    JsonNode v = node.get(field);
    return v != null && v.isIntegralNumber() && v.canConvertToLong() ? v.longValue() : fallback;
  }

  static double decimal(JsonNode node, String field, double fallback) {
    JsonNode v = node.get(field);
    return v != null && v.isNumber() && Double.isFinite(v.doubleValue()) ? v.doubleValue() : fallback;
  }

  static boolean bool(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v != null && v.isBoolean() && v.booleanValue();
  }

  /** {@code text} cut to {@code max} characters: details from elsewhere must not grow without bound. */
  static String clip(@Nullable String text, int max) {
    if (text == null) {
      return "";
    }
    return text.length() <= max ? text : text.substring(0, max) + "…";
  }
}
