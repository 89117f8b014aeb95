package narwhal.spi;

import java.util.Locale;

/** The two legs of a disaggregated request. */
public enum Phase {
  PREFILL,
  DECODE;

  /** The lower-case name used in error envelopes ({@code type}) and the journal. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
