package narwhal.core.admission;

import java.util.Locale;

/** Why predictive admission refused a request: the journal's {@code reason} for terminal {@code refused}. */
public enum RefusalCause {
  /** The prefill work queued ahead of it makes it miss the TTFT budget; it fits once that drains. */
  QUEUE,
  /** Its own prefill alone is over the TTFT budget: waiting cannot help, so no {@code Retry-After}. */
  PROMPT;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
