package narwhal.sim;

/**
 * Which leg of a disaggregated request a call is: a prefill ({@code
 * kv_transfer_params.do_remote_decode: true}) or anything else, called decode.
 */
enum RequestPhase {
  PREFILL,
  DECODE;

  static RequestPhase parse(String text) {
    switch (text) {
      case "prefill":
        return PREFILL;
      case "decode":
        return DECODE;
      default:
        throw new IllegalArgumentException("phase must be prefill or decode, got '" + text + "'");
    }
  }

  String wireName() {
    return this == PREFILL ? "prefill" : "decode";
  }
}
