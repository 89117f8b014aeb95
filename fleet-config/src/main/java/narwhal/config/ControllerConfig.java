package narwhal.config;

import java.util.Objects;

/**
 * The {@code controller} section: the monitor loop and the role controller.
 *
 * @param advisory when true the controller only reports the moves it would make
 * @param monitorIntervalS the period of the monitoring pass
 * @param monitorFailureLimit failed monitoring passes in a row that set the router degraded
 * @param minPrefill the least number of engines kept in the prefill role
 * @param minDecode the least number of engines kept in the decode role
 * @param flipHistory role moves kept for the state endpoint
 * @param thresholds when to move engines
 * @param reactive the reactive controller's scoring
 */
public record ControllerConfig(
    boolean advisory,
    double monitorIntervalS,
    int monitorFailureLimit,
    int minPrefill,
    int minDecode,
    int flipHistory,
    ThresholdsConfig thresholds,
    ReactiveConfig reactive) {

  public ControllerConfig {
    Objects.requireNonNull(thresholds, "thresholds");
    Objects.requireNonNull(reactive, "reactive");
  }

  public static ControllerConfig defaults() {
    return new ControllerConfig(
        false, 1.0, 5, 1, 1, 1000, ThresholdsConfig.defaults(), ReactiveConfig.defaults());
  }

  /** A builder holding these fields, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public ControllerConfig withAdvisory(boolean value) {
    return toBuilder().advisory(value).build();
  }

  public ControllerConfig withMonitorIntervalS(double value) {
    return toBuilder().monitorIntervalS(value).build();
  }

  public ControllerConfig withThresholds(ThresholdsConfig value) {
    return toBuilder().thresholds(value).build();
  }

  public ControllerConfig withReactive(ReactiveConfig value) {
    return toBuilder().reactive(value).build();
  }

  /**
   * Builds a {@link ControllerConfig} by name rather than by position; {@link #build} applies the
   * record's checks. Start from {@link ControllerConfig#defaults} with {@link #toBuilder}.
   */
  public static final class Builder {
    private boolean advisory;
    private double monitorIntervalS;
    private int monitorFailureLimit;
    private int minPrefill;
    private int minDecode;
    private int flipHistory;
    private ThresholdsConfig thresholds;
    private ReactiveConfig reactive;

    private Builder(ControllerConfig from) {
      advisory = from.advisory;
      monitorIntervalS = from.monitorIntervalS;
      monitorFailureLimit = from.monitorFailureLimit;
      minPrefill = from.minPrefill;
      minDecode = from.minDecode;
      flipHistory = from.flipHistory;
      thresholds = from.thresholds;
      reactive = from.reactive;
    }

    public Builder advisory(boolean value) {
      advisory = value;
      return this;
    }

    public Builder monitorIntervalS(double value) {
      monitorIntervalS = value;
      return this;
    }

    public Builder monitorFailureLimit(int value) {
      monitorFailureLimit = value;
      return this;
    }

    public Builder minPrefill(int value) {
      minPrefill = value;
      return this;
    }

    public Builder minDecode(int value) {
      minDecode = value;
      return this;
    }

    public Builder flipHistory(int value) {
      flipHistory = value;
      return this;
    }

    public Builder thresholds(ThresholdsConfig value) {
      thresholds = value;
      return this;
    }

    public Builder reactive(ReactiveConfig value) {
      reactive = value;
      return this;
    }

    public ControllerConfig build() {
      return new ControllerConfig(
          advisory, monitorIntervalS, monitorFailureLimit, minPrefill, minDecode, flipHistory,
          thresholds, reactive);
    }
  }
}
