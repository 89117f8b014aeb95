package narwhal.core.profile;

/**
 * How well a fitted latency model describes what was measured.
 *
 * @param samples how many samples the model was fitted to
 * @param mape the mean absolute percentage error of the model on its own samples, as a fraction
 *     (0.05 is 5 %): {@code mean |predicted − measured| / measured}
 * @param cvMape the leave-one-out cross-validated error: each sample predicted by the model fitted
 *     (with the same non-negativity rule) to all the others, averaged the same way; it is what
 *     tells a model that describes the engine from one that only memorised its samples
 */
public record FitQuality(int samples, double mape, double cvMape) {

  /**
   * The quality of the relative least-squares fit of {@code y} on the columns of {@code x}.
   *
   * @throws IllegalArgumentException when some fit leaving one sample out is not determined (too
   *     few distinct samples to cross-validate)
   */
  static FitQuality of(double[][] x, double[] y) {
    int n = y.length;
    double[] fitted = RelativeLeastSquares.predict(x, RelativeLeastSquares.fit(x, y));
    double mape = 0;
    for (int i = 0; i < n; i++) {
      mape += Math.abs(fitted[i] - y[i]) / y[i];
    }
    double cv = 0;
    for (int i = 0; i < n; i++) {
      double[][] xRest = new double[n - 1][];
      double[] yRest = new double[n - 1];
      for (int k = 0, r = 0; k < n; k++) {
        if (k != i) {
          xRest[r] = x[k];
          yRest[r++] = y[k];
        }
      }
      double[] c;
      try {
        c = RelativeLeastSquares.fit(xRest, yRest);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("too few distinct samples to cross-validate: without sample "
            + (i + 1) + " of " + n + ", " + e.getMessage(), e);
      }
      double predicted = RelativeLeastSquares.predict(new double[][] {x[i]}, c)[0];
      cv += Math.abs(predicted - y[i]) / y[i];
    }
    return new FitQuality(n, mape / n, cv / n);
  }

  /** True when both errors are within their limits ({@code profiles.max_decode_*_mape}). */
  public boolean within(double maxMape, double maxCvMape) {
    return mape <= maxMape && cvMape <= maxCvMape;
  }
}
