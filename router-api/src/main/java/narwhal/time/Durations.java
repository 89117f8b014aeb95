package narwhal.time;

/** Formats durations for error messages: "2.5 s", "120 s", "250 ms". */
public final class Durations {

  private Durations() {}

  public static String describe(long nanos) {
    if (nanos < 1_000_000_000L) {
      return (nanos / 1_000_000L) + " ms";
    }
    // Millisecond precision without trailing zeros: "%.3g" printed 2.5 s as "2.50 s".
    return java.math.BigDecimal.valueOf(nanos / 1_000_000L, 3).stripTrailingZeros().toPlainString() + " s";
  }
}
