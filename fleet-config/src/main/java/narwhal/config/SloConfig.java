package narwhal.config;

/**
 * The {@code slo} section: the latency targets admission and placement aim for.
 *
 * @param ttftS the time-to-first-token target in seconds
 * @param tpotS the time-per-output-token target in seconds
 */
public record SloConfig(double ttftS, double tpotS) {

  /**
   * Targets for fleets built in code. The fleet file has no defaults here: it must state both.
   */
  public static SloConfig defaults() {
    return new SloConfig(2.0, 0.1);
  }

  public static SloConfig of(double ttftS, double tpotS) {
    return new SloConfig(ttftS, tpotS);
  }

  public SloConfig withTtftS(double value) {
    return new SloConfig(value, tpotS);
  }

  public SloConfig withTpotS(double value) {
    return new SloConfig(ttftS, value);
  }
}
