package narwhal.core.profile;

/**
 * One decode measurement: the interval between tokens of a batch of streams in its steady part.
 *
 * @param residentTokens the KV tokens resident meanwhile (Σ prompt + generated over the streams)
 * @param sequences the streams generating at once
 * @param intervalSeconds the measured interval between two tokens of one stream
 */
public record DecodeSample(long residentTokens, int sequences, double intervalSeconds) {

  public DecodeSample {
    if (residentTokens < 0 || sequences < 1 || !(intervalSeconds > 0) || !Double.isFinite(intervalSeconds)) {
      throw new IllegalArgumentException("a decode sample needs resident tokens >= 0, sequences >= 1 and an "
          + "interval > 0, got " + residentTokens + ", " + sequences + ", " + intervalSeconds + " s");
    }
  }
}
