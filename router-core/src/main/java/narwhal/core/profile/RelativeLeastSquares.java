package narwhal.core.profile;

import java.util.Arrays;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.QRDecomposition;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.linear.SingularMatrixException;

/**
 * Least squares on relative error with non-negative coefficients: the fit behind both profile
 * models.
 *
 * <p>It minimises {@code Σ ((x_i·c − y_i) / y_i)²}, not the plain squared error: prompt lengths span
 * two or three orders of magnitude, and a plain fit would spend itself on the longest prompts and
 * miss the short ones by 50 %; the models are judged by mean absolute <em>percentage</em> error, so
 * the fit weighs every sample by its own size. The solve is commons-math's QR decomposition, on
 * columns scaled to a largest magnitude of 1 (L² reaches 10⁹ beside a constant column of 1).
 *
 * <p>A latency model with a negative term is not a latency model (a longer prompt would prefill
 * faster), so whenever a coefficient comes out negative the term is dropped (its coefficient is 0)
 * and the rest refitted, the most negative first, until every coefficient is non-negative. On data
 * a model describes, a true coefficient of 0 measured with noise is what this catches.
 */
final class RelativeLeastSquares {

  private RelativeLeastSquares() {}

  /**
   * The coefficients of the columns of {@code x} (one row per sample) that fit {@code y}.
   *
   * @throws IllegalArgumentException when a sample is not a positive finite number, or the
   *     samples do not determine the terms (fewer distinct rows than terms, say)
   */
  static double[] fit(double[][] x, double[] y) {
    int n = y.length;
    int terms = x.length == 0 ? 0 : x[0].length;
    if (x.length != n || n == 0 || terms == 0) {
      throw new IllegalArgumentException("a fit needs samples and terms, got " + n + " samples");
    }
    for (double v : y) {
      if (!(v > 0) || !Double.isFinite(v)) {
        throw new IllegalArgumentException("every measured time must be a positive number, got " + v);
      }
    }
    boolean[] active = new boolean[terms];
    Arrays.fill(active, true);
    while (true) {
      double[] c = solve(x, y, active);
      int worst = -1;
      for (int j = 0; j < terms; j++) {
        if (active[j] && c[j] < 0 && (worst < 0 || c[j] * scale(x, j) < c[worst] * scale(x, worst))) {
          worst = j;
        }
      }
      if (worst < 0) {
        return c;
      }
      active[worst] = false;
    }
  }

  /** {@code x_i·c} for every row. */
  static double[] predict(double[][] x, double[] c) {
    double[] out = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      double sum = 0;
      for (int j = 0; j < c.length; j++) {
        sum += x[i][j] * c[j];
      }
      out[i] = sum;
    }
    return out;
  }

  /** The unconstrained relative least-squares solution over the active columns (0 elsewhere). */
  private static double[] solve(double[][] x, double[] y, boolean[] active) {
    int n = y.length;
    int[] columns = java.util.stream.IntStream.range(0, active.length).filter(j -> active[j]).toArray();
    double[] c = new double[active.length];
    if (columns.length == 0) {
      return c;
    }
    if (n < columns.length) {
      throw new IllegalArgumentException(n + " samples cannot determine " + columns.length + " terms");
    }
    double[] scales = new double[columns.length];
    for (int k = 0; k < columns.length; k++) {
      scales[k] = scale(x, columns[k]);
    }
    double[][] a = new double[n][columns.length];
    double[] b = new double[n];
    for (int i = 0; i < n; i++) {
      // Row i divided by y_i: its residual is then the relative error of sample i.
      for (int k = 0; k < columns.length; k++) {
        a[i][k] = x[i][columns[k]] / scales[k] / y[i];
      }
      b[i] = 1;
    }
    RealVector solution;
    try {
      // A relative threshold: a column that is (numerically) a combination of the others is
      // singular even though floating point leaves a residue of 1e-16.
      solution = new QRDecomposition(new Array2DRowRealMatrix(a, false), 1e-10).getSolver()
          .solve(new ArrayRealVector(b, false));
    } catch (SingularMatrixException e) {
      throw new IllegalArgumentException("the samples do not determine every term (too few distinct "
          + "points: measure over a wider range)", e);
    }
    for (int k = 0; k < columns.length; k++) {
      c[columns[k]] = solution.getEntry(k) / scales[k];
    }
    return c;
  }

  /** The column's largest magnitude (1 for an all-zero column, which then stays singular). */
  private static double scale(double[][] x, int column) {
    double max = 0;
    for (double[] row : x) {
      max = Math.max(max, Math.abs(row[column]));
    }
    return max == 0 ? 1 : max;
  }
}
