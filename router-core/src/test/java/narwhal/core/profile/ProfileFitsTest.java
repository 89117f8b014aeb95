package narwhal.core.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The profile fits: exact recovery, noise, the non-negativity refit, and the quality numbers. */
class ProfileFitsTest {

  private static final long[] LENGTHS = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};

  @Test
  void prefill_recoversKnownQuadraticCoefficientsExactly() {
    PrefillModel truth = new PrefillModel(0.012, 8e-5, 3e-9, 32, 8192);
    List<PrefillSample> samples = new ArrayList<>();
    for (long l : LENGTHS) {
      samples.add(new PrefillSample(l, truth.seconds(l)));
    }

    ProfileFits.Prefill fit = ProfileFits.prefill(samples);

    assertThat(fit.model().baseS()).isCloseTo(0.012, within(1e-12));
    assertThat(fit.model().perTokenS()).isCloseTo(8e-5, within(1e-15));
    assertThat(fit.model().perTokenSquaredS()).isCloseTo(3e-9, within(1e-18));
    assertThat(fit.model().minTokens()).isEqualTo(32);
    assertThat(fit.model().maxTokens()).isEqualTo(8192);
    assertThat(fit.quality().samples()).isEqualTo(LENGTHS.length);
    assertThat(fit.quality().mape()).isLessThan(1e-9);
    assertThat(fit.quality().cvMape()).isLessThan(1e-9);
  }

  @Test
  void decode_recoversKnownLinearCoefficientsExactly() {
    DecodeModel truth = new DecodeModel(0.007, 2e-7, 1.5e-4, 0, 0);
    List<DecodeSample> samples = new ArrayList<>();
    for (int k : new int[] {1, 2, 4, 8, 16, 32}) {
      for (long perSeq : new long[] {96, 2100}) {
        samples.add(new DecodeSample(k * perSeq, k, truth.intervalSeconds(k * perSeq, k)));
      }
    }

    ProfileFits.Decode fit = ProfileFits.decode(samples);

    assertThat(fit.model().baseS()).isCloseTo(0.007, within(1e-12));
    assertThat(fit.model().perResidentTokenS()).isCloseTo(2e-7, within(1e-16));
    assertThat(fit.model().perSequenceS()).isCloseTo(1.5e-4, within(1e-13));
    assertThat(fit.model().maxResidentTokens()).isEqualTo(32 * 2100);
    assertThat(fit.model().maxSequences()).isEqualTo(32);
    assertThat(fit.quality().mape()).isLessThan(1e-9);
    assertThat(fit.quality().cvMape()).isLessThan(1e-9);
  }

  @Test
  void decode_withFivePercentNoise_staysCloseAndReportsTheNoise() {
    DecodeModel truth = new DecodeModel(0.008, 1e-7, 2e-4, 0, 0);
    SplittableRandom random = new SplittableRandom(15);
    List<DecodeSample> samples = new ArrayList<>();
    for (int repeat = 0; repeat < 4; repeat++) {
      for (int k : new int[] {1, 2, 4, 8, 16, 32}) {
        for (long perSeq : new long[] {64, 1024, 4096}) {
          // Uniform multiplicative noise of ±5 %: a mean absolute error of 2.5 %.
          double noise = 1 + (random.nextDouble() * 2 - 1) * 0.05;
          samples.add(new DecodeSample(k * perSeq, k, truth.intervalSeconds(k * perSeq, k) * noise));
        }
      }
    }

    ProfileFits.Decode fit = ProfileFits.decode(samples);

    assertThat(fit.model().baseS()).isCloseTo(0.008, within(0.0008));
    assertThat(fit.model().perResidentTokenS()).isCloseTo(1e-7, within(1e-8));
    assertThat(fit.model().perSequenceS()).isCloseTo(2e-4, within(4e-5));
    assertThat(fit.quality().mape()).isBetween(0.015, 0.035);
    assertThat(fit.quality().cvMape()).isBetween(fit.quality().mape(), 0.04);
    assertThat(fit.quality().within(0.05, 0.13)).isTrue();
  }

  @Test
  void prefill_whoseQuadraticFitsNegative_dropsThatTermAndRefits() {
    // Linear in L with a sub-linear bend at the top: unconstrained, L² comes out negative.
    List<PrefillSample> samples = new ArrayList<>();
    for (long l : LENGTHS) {
      samples.add(new PrefillSample(l, 0.002 + 2e-5 * l - 4e-10 * l * l));
    }

    ProfileFits.Prefill fit = ProfileFits.prefill(samples);

    assertThat(fit.model().perTokenSquaredS()).isZero();
    assertThat(fit.model().baseS()).isPositive();
    assertThat(fit.model().perTokenS()).isPositive();
    // The refitted line: every coefficient non-negative, and still a close description.
    assertThat(fit.quality().mape()).isLessThan(0.05);
  }

  @Test
  void decode_whosePerTokenTermFitsNegative_isRefittedOnTheOthers_exactlyWhereTheyDescribeIt() {
    // Depends on sequences alone; a sliver of negative slope in resident tokens is measurement
    // noise, and the refit without the term recovers base and per-sequence exactly.
    List<DecodeSample> samples = List.of(
        new DecodeSample(100, 1, 0.0110), new DecodeSample(5000, 1, 0.01099),
        new DecodeSample(200, 2, 0.0120), new DecodeSample(10000, 2, 0.01199),
        new DecodeSample(400, 4, 0.0140), new DecodeSample(20000, 4, 0.01399));

    double[][] x = new double[samples.size()][];
    double[] y = new double[samples.size()];
    for (int i = 0; i < samples.size(); i++) {
      x[i] = new double[] {1, samples.get(i).residentTokens(), samples.get(i).sequences()};
      y[i] = samples.get(i).intervalSeconds();
    }
    double[] unconstrained = unconstrained(x, y);
    assertThat(unconstrained[1]).as("the premise: unconstrained, the per-token term is negative").isNegative();

    ProfileFits.Decode fit = ProfileFits.decode(samples);

    assertThat(fit.model().perResidentTokenS()).isZero();
    assertThat(fit.model().baseS()).isCloseTo(0.010, within(1e-5));
    assertThat(fit.model().perSequenceS()).isCloseTo(0.001, within(1e-5));
  }

  /**
   * Four samples of a 2 x 2 design, three on the plane 0.008 + 1e-6·T + 0.002·S and the fourth
   * 0.0005 s above it. Worked by hand:
   *
   * <ul>
   *   <li>MAPE. The weighted fit's residual lies along the one vector v orthogonal to every column
   *       of the rows divided by y: v_i = w_i·y_i with w = (1, −1, −1, 1), since w sums each of the
   *       columns (1, T, S) of a 2 x 2 design to 0. So v = (0.010, −0.011, −0.012, 0.0135), each
   *       sample's relative error is |v_i|·(Σv_i)/(Σv_i²) = |v_i|·0.0005/0.00054725, and the MAPE
   *       is 0.0465·0.913659/4 = 0.0106213.
   *   <li>CV. Three samples determine three coefficients exactly; leaving out A, B, C, D in turn
   *       predicts 0.0095, 0.0115, 0.0125, 0.013 against 0.010, 0.011, 0.012, 0.0135: errors
   *       0.05, 0.0454545, 0.0416667, 0.0370370, mean 0.0435396.
   * </ul>
   */
  @Test
  void quality_onAHandCheckedSet() {
    List<DecodeSample> samples = List.of(
        new DecodeSample(0, 1, 0.010), new DecodeSample(1000, 1, 0.011),
        new DecodeSample(0, 2, 0.012), new DecodeSample(1000, 2, 0.0135));

    FitQuality q = ProfileFits.decode(samples).quality();

    assertThat(q.samples()).isEqualTo(4);
    assertThat(q.mape()).isCloseTo(0.0465 * (0.0005 / 0.00054725) / 4, within(1e-9));
    assertThat(q.cvMape()).isCloseTo((0.05 + 0.0005 / 0.011 + 0.0005 / 0.012 + 0.0005 / 0.0135) / 4, within(1e-9));
    assertThat(q.within(0.05, 0.13)).isTrue();
    assertThat(q.within(0.05, 0.04)).isFalse();
    assertThat(q.within(0.01, 0.13)).isFalse();
  }

  @Test
  void samplesThatCannotDetermineTheModel_areRefusedWithAReason() {
    List<PrefillSample> oneLength = List.of(
        new PrefillSample(512, 0.01), new PrefillSample(512, 0.011), new PrefillSample(512, 0.012),
        new PrefillSample(512, 0.013));
    List<PrefillSample> threeLengths = List.of(
        new PrefillSample(64, 0.01), new PrefillSample(512, 0.02), new PrefillSample(4096, 0.1));

    assertThatThrownBy(() -> ProfileFits.prefill(oneLength))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("do not determine");
    assertThatThrownBy(() -> ProfileFits.prefill(threeLengths))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cross-validate");
    assertThatThrownBy(() -> new PrefillSample(0, 0.1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecodeSample(10, 1, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
  }

  /** Plain relative least squares without the non-negativity rule (normal equations, 3 x 3). */
  private static double[] unconstrained(double[][] x, double[] y) {
    double[][] m = new double[3][4];
    for (int i = 0; i < y.length; i++) {
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
          m[r][c] += x[i][r] * x[i][c] / (y[i] * y[i]);
        }
        m[r][3] += x[i][r] / y[i];
      }
    }
    for (int p = 0; p < 3; p++) {
      for (int r = 0; r < 3; r++) {
        if (r != p) {
          double f = m[r][p] / m[p][p];
          for (int c = 0; c < 4; c++) {
            m[r][c] -= f * m[p][c];
          }
        }
      }
    }
    return new double[] {m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]};
  }
}
