package narwhal.core.profile;

/**
 * An engine's decode interval (seconds between two tokens of one stream) as it runs a batch:
 * {@code base + perResidentToken·T + perSequence·S} for T KV tokens resident and S sequences
 * active. Each step reads every resident token's KV once and does per-sequence work, hence linear.
 *
 * @param baseS the interval of an almost empty engine (the floor)
 * @param perResidentTokenS the growth per resident KV token
 * @param perSequenceS the growth per active sequence
 * @param maxResidentTokens the most resident tokens the model was measured at
 * @param maxSequences the most active sequences the model was measured at
 */
public record DecodeModel(
    double baseS, double perResidentTokenS, double perSequenceS, long maxResidentTokens, int maxSequences) {

  public DecodeModel {
    if (!(baseS >= 0) || !(perResidentTokenS >= 0) || !(perSequenceS >= 0)) {
      throw new IllegalArgumentException("decode coefficients must be non-negative numbers");
    }
  }

  /** Predicted seconds between tokens with {@code residentTokens} and {@code sequences} active. */
  public double intervalSeconds(long residentTokens, int sequences) {
    return baseS + perResidentTokenS * Math.max(0, residentTokens) + perSequenceS * Math.max(0, sequences);
  }
}
