package narwhal.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Converts free-form sections ({@code hardware}, {@code engine_contract.speculative_config}) to
 * plain unmodifiable Java values, dropping {@code _} comment keys at every depth.
 */
final class FreeFormJson {

  private FreeFormJson() {}

  static Map<String, @Nullable Object> toMap(JsonNode object) {
    Map<String, @Nullable Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> field : object.properties()) {
      if (!field.getKey().startsWith("_")) {
        out.put(field.getKey(), toJava(field.getValue()));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  static @Nullable Object toJava(JsonNode node) {
    if (node.isObject()) {
      return toMap(node);
    }
    if (node.isArray()) {
      List<@Nullable Object> out = new ArrayList<>(node.size());
      for (JsonNode item : node) {
        out.add(toJava(item));
      }
      return Collections.unmodifiableList(out);
    }
    if (node.isIntegralNumber()) {
      if (node.canConvertToInt()) {
        return node.intValue();
      }
      return node.canConvertToLong() ? (Object) node.longValue() : node.bigIntegerValue();
    }
    if (node.isNumber()) {
      return node.doubleValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    if (node.isTextual()) {
      return node.textValue();
    }
    return null;
  }
}
