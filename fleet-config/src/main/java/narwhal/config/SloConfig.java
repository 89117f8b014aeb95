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

  /** A builder holding these fields, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public SloConfig withTtftS(double value) {
    return toBuilder().ttftS(value).build();
  }

  public SloConfig withTpotS(double value) {
    return toBuilder().tpotS(value).build();
  }

  /**
   * Builds an {@link SloConfig} by name rather than by position. Start from {@link
   * SloConfig#defaults} with {@link #toBuilder}.
   */
  public static final class Builder {
    private double ttftS;
    private double tpotS;

    private Builder(SloConfig from) {
      ttftS = from.ttftS;
      tpotS = from.tpotS;
    }

    public Builder ttftS(double value) {
      ttftS = value;
      return this;
    }

    public Builder tpotS(double value) {
      tpotS = value;
      return this;
    }

    public SloConfig build() {
      return new SloConfig(
          ttftS, tpotS);
    }
  }
}
