package narwhal.sim;

import java.util.Locale;

/**
 * SGLang's {@code --disaggregation-mode}: which leg of a rendezvous this engine serves. A real
 * SGLang engine is started as one or the other and never changes; the simulator without a mode
 * decides per request, from whether the rendezvous names its own address.
 */
public enum DisaggregationMode {
  /** Computes prompts and serves their KV cache from its bootstrap server. */
  PREFILL,
  /** Pulls the KV cache from the prefill engine the rendezvous names, then streams. */
  DECODE;

  /** {@code prefill} or {@code decode}, as SGLang spells them. */
  public static DisaggregationMode parse(String text) {
    switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "prefill":
        return PREFILL;
      case "decode":
        return DECODE;
      default:
        throw new IllegalArgumentException("--disaggregation-mode must be prefill or decode (SGLang's values), got '"
            + text + "'");
    }
  }
}
