package narwhal.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The free-form {@code hardware} section, kept as read: comment keys dropped, JSON objects as
 * {@code Map}, arrays as {@code List}, integers as {@code Integer}/{@code Long}/{@code BigInteger}
 * by size, other numbers as {@code Double}, JSON null as null.
 *
 * @param values the section's entries in file order; unmodifiable
 */
public record HardwareConfig(Map<String, @Nullable Object> values) {

  public HardwareConfig {
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  public static HardwareConfig defaults() {
    return new HardwareConfig(Map.of());
  }

  /** The entry under {@code key}, or null when it is absent or JSON null. */
  public @Nullable Object get(String key) {
    return values.get(key);
  }
}
