package narwhal.core.profile;

import java.util.List;

/**
 * Fits the two latency models of an engine profile to what was measured: prefill time as {@code
 * base + a·L + b·L²} over prompt length L, the decode interval as {@code base + c·T + d·S} over
 * resident tokens T and active sequences S. Each coefficient is non-negative (a term whose
 * unconstrained coefficient comes out negative is dropped and the rest refitted, see {@link
 * RelativeLeastSquares}), and each fit reports its {@link FitQuality}.
 */
public final class ProfileFits {

  /** A fitted prefill model and how well it fits. */
  public record Prefill(PrefillModel model, FitQuality quality) {}

  /** A fitted decode model and how well it fits. */
  public record Decode(DecodeModel model, FitQuality quality) {}

  private ProfileFits() {}

  /**
   * The prefill model of {@code samples}; its domain is the shortest to the longest prompt measured.
   *
   * @throws IllegalArgumentException when the samples cannot determine the model (fewer than four
   *     distinct prompt lengths leave a leave-one-out fit undetermined)
   */
  public static Prefill prefill(List<PrefillSample> samples) {
    double[][] x = new double[samples.size()][];
    double[] y = new double[samples.size()];
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < samples.size(); i++) {
      PrefillSample s = samples.get(i);
      double l = s.promptTokens();
      x[i] = new double[] {1, l, l * l};
      y[i] = s.seconds();
      min = Math.min(min, s.promptTokens());
      max = Math.max(max, s.promptTokens());
    }
    double[] c = RelativeLeastSquares.fit(x, y);
    return new Prefill(new PrefillModel(c[0], c[1], c[2], min, max), FitQuality.of(x, y));
  }

  /**
   * The decode model of {@code samples}; its domain is the most resident tokens and sequences
   * measured.
   *
   * @throws IllegalArgumentException when the samples cannot determine the model (resident tokens
   *     that only ever grow with the sequence count, say)
   */
  public static Decode decode(List<DecodeSample> samples) {
    double[][] x = new double[samples.size()][];
    double[] y = new double[samples.size()];
    long maxResident = 0;
    int maxSequences = 0;
    for (int i = 0; i < samples.size(); i++) {
      DecodeSample s = samples.get(i);
      x[i] = new double[] {1, s.residentTokens(), s.sequences()};
      y[i] = s.intervalSeconds();
      maxResident = Math.max(maxResident, s.residentTokens());
      maxSequences = Math.max(maxSequences, s.sequences());
    }
    double[] c = RelativeLeastSquares.fit(x, y);
    return new Decode(new DecodeModel(c[0], c[1], c[2], maxResident, maxSequences), FitQuality.of(x, y));
  }
}
