package narwhal.config;

import static narwhal.config.NumberRange.NON_NEGATIVE;
import static narwhal.config.NumberRange.POSITIVE;
import static narwhal.config.NumberRange.UNIT_INTERVAL;

import java.util.Objects;

/**
 * Reads the sections that steer engine health and roles: {@code recovery} (with {@code health})
 * and {@code controller} (with {@code thresholds} and {@code reactive}). Absent keys take the
 * record's defaults.
 */
final class ControlSectionParsers {

  private ControlSectionParsers() {}

  static RecoveryConfig recovery(ConfigObject r) {
    RecoveryConfig d = RecoveryConfig.defaults();
    int ejectAfter = r.integer("eject_after", d.ejectAfter(), 1);
    int readmitEvery = r.integer("readmit_every", d.readmitEvery(), 1);
    int livenessEvery = r.integer("liveness_every", d.livenessEvery(), 1);
    int livenessMisses = r.integer("liveness_misses", d.livenessMisses(), 1);
    double quarantineS = r.number("failure_quarantine_s", d.failureQuarantineS(), NON_NEGATIVE);
    EngineRestartPolicy policy =
        Objects.requireNonNullElse(
            r.choice("engine_restart_policy", Choices.RESTART_POLICIES, false),
            d.engineRestartPolicy());
    String statePath = r.string("state_path", d.statePath());
    boolean resume = r.bool("resume", d.resume());
    HealthConfig health = health(r.object("health"));
    r.finish();
    return d.toBuilder()
        .ejectAfter(ejectAfter)
        .readmitEvery(readmitEvery)
        .livenessEvery(livenessEvery)
        .livenessMisses(livenessMisses)
        .failureQuarantineS(quarantineS)
        .engineRestartPolicy(policy)
        .statePath(statePath)
        .resume(resume)
        .health(health)
        .build();
  }

  static HealthConfig health(ConfigObject h) {
    HealthConfig d = HealthConfig.defaults();
    HealthConfig health =
        new HealthConfig(
            h.number("window_s", d.windowS(), POSITIVE),
            h.number("drift_band", d.driftBand(), POSITIVE),
            h.number("relative_band", d.relativeBand(), POSITIVE),
            h.integer("min_samples", d.minSamples(), 1),
            h.integer("probation_windows", d.probationWindows(), 1),
            h.integer("evict_windows", d.evictWindows(), 1),
            h.integer("recovery_windows", d.recoveryWindows(), 1),
            h.number("probation_penalty_s", d.probationPenaltyS(), NON_NEGATIVE));
    h.finish();
    return health;
  }

  static ControllerConfig controller(ConfigObject c) {
    ControllerConfig d = ControllerConfig.defaults();
    boolean advisory = c.bool("advisory", d.advisory());
    double monitorIntervalS = c.number("monitor_interval_s", d.monitorIntervalS(), POSITIVE);
    int monitorFailureLimit = c.integer("monitor_failure_limit", d.monitorFailureLimit(), 1);
    int minPrefill = c.integer("min_prefill", d.minPrefill(), 0);
    int minDecode = c.integer("min_decode", d.minDecode(), 0);
    int flipHistory = c.integer("flip_history", d.flipHistory(), 0);
    ThresholdsConfig thresholds = thresholds(c.object("thresholds"));
    ReactiveConfig reactive = reactive(c.object("reactive"));
    c.finish();
    return d.toBuilder()
        .advisory(advisory)
        .monitorIntervalS(monitorIntervalS)
        .monitorFailureLimit(monitorFailureLimit)
        .minPrefill(minPrefill)
        .minDecode(minDecode)
        .flipHistory(flipHistory)
        .thresholds(thresholds)
        .reactive(reactive)
        .build();
  }

  static ThresholdsConfig thresholds(ConfigObject t) {
    ThresholdsConfig d = ThresholdsConfig.defaults();
    double expand = t.number("expand", d.expand(), POSITIVE);
    double shrink = t.number("shrink", d.shrink(), NON_NEGATIVE);
    double cooldownS = t.number("cooldown_s", d.cooldownS(), NON_NEGATIVE);
    int sustainedIntervals = t.integer("sustained_intervals", d.sustainedIntervals(), 1);
    double dwellS = t.number("dwell_s", d.dwellS(), NON_NEGATIVE);
    double panicRatio = t.number("panic_ratio", d.panicRatio(), NON_NEGATIVE);
    int flipResidentGuard = t.integer("flip_resident_guard", d.flipResidentGuard(), 0);
    // A shrink at or above expand would let one load both grow and shrink the same pool.
    if (shrink >= expand && t.isValid("shrink") && t.isValid("expand")) {
      t.error(
          "shrink",
          "must be < expand (" + JsonPaths.show(shrink) + " >= " + JsonPaths.show(expand) + ")");
    }
    t.finish();
    return new ThresholdsConfig(
        expand, shrink, cooldownS, sustainedIntervals, dwellS, panicRatio, flipResidentGuard);
  }

  static ReactiveConfig reactive(ConfigObject r) {
    ReactiveConfig d = ReactiveConfig.defaults();
    double windowS = r.number("window_s", d.windowS(), POSITIVE);
    int confirmations = r.integer("confirmations", d.confirmations(), 1);
    double utilization = r.number("utilization", d.utilization(), UNIT_INTERVAL);
    int minArrivals = r.integer("min_arrivals", d.minArrivals(), 0);
    double demandFloor = r.number("demand_floor", d.demandFloor(), NON_NEGATIVE);
    double movementMargin = r.number("movement_margin", d.movementMargin(), NON_NEGATIVE);
    double stepS = r.number("step_s", d.stepS(), POSITIVE);
    double evidenceSpanS = r.number("evidence_span_s", d.evidenceSpanS(), POSITIVE);
    double evidenceMaxSpanS = r.number("evidence_max_span_s", d.evidenceMaxSpanS(), POSITIVE);
    int evidenceMinArrivals = r.integer("evidence_min_arrivals", d.evidenceMinArrivals(), 0);
    double riseTolerance =
        r.number("demand_rise_tolerance", d.demandRiseTolerance(), NON_NEGATIVE);
    double correctionMin = r.number("decode_correction_min", d.decodeCorrectionMin(), POSITIVE);
    double correctionMax = r.number("decode_correction_max", d.decodeCorrectionMax(), POSITIVE);
    double correctionAlpha =
        r.number("decode_correction_alpha", d.decodeCorrectionAlpha(), UNIT_INTERVAL);
    int correctionMinSamples =
        r.integer("decode_correction_min_samples", d.decodeCorrectionMinSamples(), 1);
    if (evidenceMaxSpanS < evidenceSpanS
        && r.isValid("evidence_span_s")
        && r.isValid("evidence_max_span_s")) {
      r.error(
          "evidence_max_span_s",
          "must be >= evidence_span_s ("
              + JsonPaths.show(evidenceMaxSpanS)
              + " < "
              + JsonPaths.show(evidenceSpanS)
              + ")");
    }
    if (correctionMax < correctionMin
        && r.isValid("decode_correction_min")
        && r.isValid("decode_correction_max")) {
      r.error(
          "decode_correction_max",
          "must be >= decode_correction_min ("
              + JsonPaths.show(correctionMax)
              + " < "
              + JsonPaths.show(correctionMin)
              + ")");
    }
    r.finish();
    return new ReactiveConfig(
        windowS, confirmations, utilization, minArrivals, demandFloor, movementMargin, stepS,
        evidenceSpanS, evidenceMaxSpanS, evidenceMinArrivals, riseTolerance, correctionMin,
        correctionMax, correctionAlpha, correctionMinSamples);
  }
}
