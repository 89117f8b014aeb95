package narwhal.core.control;

import java.util.Objects;
import narwhal.config.ControllerConfig;
import narwhal.config.FleetConfig;
import narwhal.config.ReactiveConfig;
import narwhal.config.SloConfig;
import narwhal.config.ThresholdsConfig;

/**
 * The controller's configuration in the units it runs on: the {@code controller} section, the
 * SLO it prices against, and the durations as nanoseconds on the scheduler's clock.
 *
 * @param controller the {@code controller} section
 * @param slo the latency targets loads are measured against
 */
record ControllerSettings(ControllerConfig controller, SloConfig slo) {

  ControllerSettings {
    Objects.requireNonNull(controller, "controller");
    Objects.requireNonNull(slo, "slo");
  }

  static ControllerSettings of(FleetConfig config) {
    return new ControllerSettings(config.controller(), config.slo());
  }

  ThresholdsConfig thresholds() {
    return controller.thresholds();
  }

  ReactiveConfig reactive() {
    return controller.reactive();
  }

  long monitorIntervalNanos() {
    return nanos(controller.monitorIntervalS());
  }

  long stepNanos() {
    return nanos(reactive().stepS());
  }

  long cooldownNanos() {
    return nanos(thresholds().cooldownS());
  }

  long dwellNanos() {
    return nanos(thresholds().dwellS());
  }

  long windowNanos() {
    return nanos(reactive().windowS());
  }

  long evidenceSpanNanos() {
    return nanos(reactive().evidenceSpanS());
  }

  long evidenceMaxSpanNanos() {
    return nanos(reactive().evidenceMaxSpanS());
  }

  /**
   * How soon a move back counts as a reversal (thrash): twice the longer of {@code cooldown_s}
   * and {@code step_s}, so a reversal is a move undone within about two of the controller's own
   * decision periods.
   */
  long reversalWindowNanos() {
    return 2 * Math.max(cooldownNanos(), stepNanos());
  }

  /** The least size the pool of {@code prefill} (else decode) keeps after giving an engine up. */
  int floor(boolean prefill) {
    return prefill ? controller.minPrefill() : controller.minDecode();
  }

  static long nanos(double seconds) {
    double n = seconds * 1e9;
    return n >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, Math.round(n));
  }
}
