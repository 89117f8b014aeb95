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

  public ControllerConfig withAdvisory(boolean value) {
    return new ControllerConfig(
        value, monitorIntervalS, monitorFailureLimit, minPrefill, minDecode, flipHistory,
        thresholds, reactive);
  }

  public ControllerConfig withMonitorIntervalS(double value) {
    return new ControllerConfig(
        advisory, value, monitorFailureLimit, minPrefill, minDecode, flipHistory, thresholds,
        reactive);
  }

  public ControllerConfig withThresholds(ThresholdsConfig value) {
    return new ControllerConfig(
        advisory, monitorIntervalS, monitorFailureLimit, minPrefill, minDecode, flipHistory,
        value, reactive);
  }

  public ControllerConfig withReactive(ReactiveConfig value) {
    return new ControllerConfig(
        advisory, monitorIntervalS, monitorFailureLimit, minPrefill, minDecode, flipHistory,
        thresholds, value);
  }
}
