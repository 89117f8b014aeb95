package narwhal.engines.client;

/** Formats durations for error messages: "2.5 s", "120 s", "250 ms". */
public final class Durations {

  private Durations() {}

  public static String describe(long nanos) {
    if (nanos < 1_000_000_000L) {
      return (nanos / 1_000_000L) + " ms";
    }
    double seconds = nanos / 1e9;
    if (seconds == Math.rint(seconds)) {
      return (long) seconds + " s";
    }
    return String.format(java.util.Locale.ROOT, "%.3g s", seconds);
  }
}
