package narwhal.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/** The fleet-file spellings of enum-valued keys, in declaration order for error messages. */
final class Choices {

  static final Map<String, EngineRole> ROLES = of(EngineRole.values(), EngineRole::configName);
  static final Map<String, AdmissionMode> ADMISSION =
      of(AdmissionMode.values(), AdmissionMode::configName);
  static final Map<String, EngineRestartPolicy> RESTART_POLICIES =
      of(EngineRestartPolicy.values(), EngineRestartPolicy::configName);
  static final Map<String, TransferMode> TRANSFER_MODES =
      of(TransferMode.values(), TransferMode::configName);
  static final Map<String, CacheMode> CACHE_MODES = of(CacheMode.values(), CacheMode::configName);
  static final Map<String, String> CONNECTORS = identity(EngineConfig.CONNECTOR_NIXL);
  static final Map<String, String> KV_ROLES = identity("kv_both", "kv_producer", "kv_consumer");

  private Choices() {}

  static Map<String, String> identity(String... names) {
    return of(names, Function.identity());
  }

  private static <T> Map<String, T> of(T[] values, Function<T, String> spelling) {
    Map<String, T> out = new LinkedHashMap<>();
    for (T value : values) {
      out.put(spelling.apply(value), value);
    }
    return Collections.unmodifiableMap(out);
  }
}
