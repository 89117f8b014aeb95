package narwhal.config;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** The role an engine starts in, as the fleet file's {@code engines[].role} names it. */
public enum EngineRole {
  /** Runs prefill legs only (the KV producer). */
  PREFILL,
  /** Runs decode legs only (the KV consumer). */
  DECODE,
  /** May run either leg. */
  BOTH;

  public boolean canPrefill() {
    return this != DECODE;
  }

  public boolean canDecode() {
    return this != PREFILL;
  }

  /** The spelling used in the fleet file, e.g. {@code "prefill"}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The role with this fleet-file spelling, or null when there is none. */
  public static @Nullable EngineRole fromConfigName(String name) {
    for (EngineRole role : values()) {
      if (role.configName().equals(name)) {
        return role;
      }
    }
    return null;
  }
}
