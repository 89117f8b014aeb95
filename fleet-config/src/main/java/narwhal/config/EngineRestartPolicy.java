package narwhal.config;

import java.util.Locale;

/** What {@code recovery.engine_restart_policy} says about restarting engines. */
public enum EngineRestartPolicy {
  /** Engines restart one at a time while the rest keep serving. */
  INDIVIDUAL,
  /** Engines restart together; the router holds admission until the wave is back. */
  WHOLE_WAVE;

  /** The spelling used in the fleet file, e.g. {@code "whole_wave"}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
