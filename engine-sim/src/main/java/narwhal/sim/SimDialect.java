package narwhal.sim;

import java.util.Locale;

/**
 * Which engine family the simulator plays. Both speak the same OpenAI-compatible wire format and
 * generate the same tokens; they differ in how a disaggregated request's two legs meet.
 */
public enum SimDialect {
  /** vLLM with NixlConnector: {@code kv_transfer_params} returned by the prefill, sent to decode. */
  VLLM,
  /**
   * SGLang PD disaggregation: both legs carry {@code bootstrap_host}, {@code bootstrap_port} and
   * {@code bootstrap_room}; the decode leg pulls the KV cache from the prefill engine's bootstrap
   * server while both run.
   */
  SGLANG;

  /** {@code vllm} or {@code sglang}, any case. */
  public static SimDialect parse(String text) {
    switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "vllm":
        return VLLM;
      case "sglang":
        return SGLANG;
      default:
        throw new IllegalArgumentException("dialect must be vllm or sglang, got '" + text + "'");
    }
  }

  String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
