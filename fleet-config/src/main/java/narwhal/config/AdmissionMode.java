package narwhal.config;

import java.util.Locale;

/** How {@code serving.admission} decides whether to take a request. */
public enum AdmissionMode {
  /** Price each request against the TTFT budget and refuse what would miss it. */
  PREDICTIVE,
  /** Admit up to the in-flight and queue limits without pricing. */
  OPEN;

  /** The spelling used in the fleet file, e.g. {@code "predictive"}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
