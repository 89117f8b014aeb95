package narwhal.core.control;

/**
 * How much slower (or faster) one engine decodes than its profile predicts: an exponentially
 * weighted mean of observed/predicted interval ratios ({@code reactive.decode_correction_alpha}
 * per sample), clamped to [{@code decode_correction_min}, {@code decode_correction_max}] and
 * applied only once {@code decode_correction_min_samples} samples are in (1 before). The decode
 * load's floor is the profile's base interval times this factor, so an engine whose hardware or
 * batch shape drifted from its profile is measured against what it really does when idle.
 * Confined to the controller's loop.
 */
final class DecodeCorrection {

  private final double min;
  private final double max;
  private final double alpha;
  private final int minSamples;
  private double smoothed = Double.NaN;
  private int samples;

  DecodeCorrection(double min, double max, double alpha, int minSamples) {
    this.min = min;
    this.max = max;
    this.alpha = alpha;
    this.minSamples = minSamples;
  }

  /** One monitor interval's mean observed interval against what the profile predicted for it. */
  void observe(double observedS, double predictedS) {
    if (!(observedS > 0) || !(predictedS > 0) || Double.isInfinite(observedS)) {
      return;
    }
    double ratio = observedS / predictedS;
    smoothed = samples == 0 ? ratio : smoothed + alpha * (ratio - smoothed);
    samples++;
  }

  /** The factor in force: 1 until enough samples, then the smoothed ratio within its bounds. */
  double factor() {
    if (samples < minSamples) {
      return 1.0;
    }
    return Math.max(min, Math.min(max, smoothed));
  }

  int samples() {
    return samples;
  }
}
