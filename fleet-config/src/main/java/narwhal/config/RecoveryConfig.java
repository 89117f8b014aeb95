package narwhal.config;

import java.util.Objects;

/**
 * The {@code recovery} section: the engine breaker, readmission, liveness and restart handling.
 *
 * @param ejectAfter a failure streak of this length in one class trips the breaker for an engine
 * @param readmitEvery monitor intervals between readmission probes of a held or ejected engine
 * @param livenessEvery monitor intervals between liveness sweeps
 * @param livenessMisses failed liveness sweeps in a row that eject an engine
 * @param failureQuarantineS how long a failed engine stays out of placement while its role remains
 *     covered; 0 turns quarantine off
 * @param engineRestartPolicy how engine restarts are handled
 * @param statePath where the HA handoff document is written
 * @param resume whether startup restores the document at {@code statePath}
 * @param health drift scoring
 */
public record RecoveryConfig(
    int ejectAfter,
    int readmitEvery,
    int livenessEvery,
    int livenessMisses,
    double failureQuarantineS,
    EngineRestartPolicy engineRestartPolicy,
    String statePath,
    boolean resume,
    HealthConfig health) {

  public RecoveryConfig {
    Objects.requireNonNull(engineRestartPolicy, "engineRestartPolicy");
    Objects.requireNonNull(statePath, "statePath");
    Objects.requireNonNull(health, "health");
  }

  public static RecoveryConfig defaults() {
    return new RecoveryConfig(
        3, 10, 10, 2, 0.0, EngineRestartPolicy.INDIVIDUAL, "runs/state.json", false,
        HealthConfig.defaults());
  }

  public RecoveryConfig withEjectAfter(int value) {
    return new RecoveryConfig(
        value, readmitEvery, livenessEvery, livenessMisses, failureQuarantineS,
        engineRestartPolicy, statePath, resume, health);
  }

  public RecoveryConfig withReadmitEvery(int value) {
    return new RecoveryConfig(
        ejectAfter, value, livenessEvery, livenessMisses, failureQuarantineS,
        engineRestartPolicy, statePath, resume, health);
  }

  public RecoveryConfig withLivenessEvery(int value) {
    return new RecoveryConfig(
        ejectAfter, readmitEvery, value, livenessMisses, failureQuarantineS,
        engineRestartPolicy, statePath, resume, health);
  }

  public RecoveryConfig withLivenessMisses(int value) {
    return new RecoveryConfig(
        ejectAfter, readmitEvery, livenessEvery, value, failureQuarantineS,
        engineRestartPolicy, statePath, resume, health);
  }

  public RecoveryConfig withFailureQuarantineS(double value) {
    return new RecoveryConfig(
        ejectAfter, readmitEvery, livenessEvery, livenessMisses, value, engineRestartPolicy,
        statePath, resume, health);
  }

  public RecoveryConfig withEngineRestartPolicy(EngineRestartPolicy value) {
    return new RecoveryConfig(
        ejectAfter, readmitEvery, livenessEvery, livenessMisses, failureQuarantineS, value,
        statePath, resume, health);
  }

  public RecoveryConfig withHealth(HealthConfig value) {
    return new RecoveryConfig(
        ejectAfter, readmitEvery, livenessEvery, livenessMisses, failureQuarantineS,
        engineRestartPolicy, statePath, resume, value);
  }
}
