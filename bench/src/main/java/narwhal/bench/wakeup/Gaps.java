package narwhal.bench.wakeup;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** {@code --gaps-ms}: the idle gaps to measure, in the order given. */
final class Gaps {

  /** Longer gaps add nothing: the CPU reaches its deepest idle state within milliseconds. */
  static final BigDecimal MAX_MS = BigDecimal.valueOf(10_000);

  private static final String EXAMPLE = "e.g. --gaps-ms 0,0.05,0.2,1,4.5,20";

  private Gaps() {}

  /**
   * One gap: {@code label} as the user spelt it (for the report), {@code nanos} exact (parsed as a
   * decimal, so 0.05 ms is 50,000 ns and not 49,999).
   */
  record Gap(String label, long nanos) {

    double millis() {
      return nanos / 1e6;
    }
  }

  /**
   * @throws IllegalArgumentException saying what to fix: an empty list, a value that is not a
   *     number, negative, above {@link #MAX_MS} or given twice
   */
  static List<Gap> parse(String text) {
    List<Gap> gaps = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    for (String part : text.split(",", -1)) {
      String p = part.trim();
      if (p.isEmpty()) {
        throw new IllegalArgumentException("--gaps-ms '" + text + "' has an empty entry; give idle gaps in "
            + "milliseconds separated by commas, " + EXAMPLE);
      }
      BigDecimal ms;
      try {
        ms = new BigDecimal(p);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--gaps-ms: '" + p + "' is not a number of milliseconds; " + EXAMPLE, e);
      }
      if (ms.signum() < 0) {
        throw new IllegalArgumentException("--gaps-ms: '" + p + "' is negative; gaps are idle times, 0 or more "
            + "milliseconds");
      }
      if (ms.compareTo(MAX_MS) > 0) {
        throw new IllegalArgumentException("--gaps-ms: '" + p + "' is longer than " + MAX_MS.toPlainString()
            + " ms; an idle CPU is in its deepest state long before that, use a shorter gap");
      }
      long nanos = ms.movePointRight(6).setScale(0, RoundingMode.HALF_UP).longValueExact();
      if (!seen.add(nanos)) {
        throw new IllegalArgumentException("--gaps-ms: " + p + " ms is given twice; list each gap once");
      }
      gaps.add(new Gap(p, nanos));
    }
    return List.copyOf(gaps);
  }

  /**
   * The gap the others are compared with: 0 when measured (no idle time at all), else the
   * shortest.
   */
  static Gap baseline(List<Gap> gaps) {
    Gap best = gaps.get(0);
    for (Gap g : gaps) {
      if (g.nanos() < best.nanos()) {
        best = g;
      }
    }
    return best;
  }
}
