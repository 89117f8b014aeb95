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

  /** A builder holding these fields, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public RecoveryConfig withEjectAfter(int value) {
    return toBuilder().ejectAfter(value).build();
  }

  public RecoveryConfig withReadmitEvery(int value) {
    return toBuilder().readmitEvery(value).build();
  }

  public RecoveryConfig withLivenessEvery(int value) {
    return toBuilder().livenessEvery(value).build();
  }

  public RecoveryConfig withLivenessMisses(int value) {
    return toBuilder().livenessMisses(value).build();
  }

  public RecoveryConfig withFailureQuarantineS(double value) {
    return toBuilder().failureQuarantineS(value).build();
  }

  public RecoveryConfig withEngineRestartPolicy(EngineRestartPolicy value) {
    return toBuilder().engineRestartPolicy(value).build();
  }

  public RecoveryConfig withHealth(HealthConfig value) {
    return toBuilder().health(value).build();
  }

  /**
   * Builds a {@link RecoveryConfig} by name rather than by position; {@link #build} applies the
   * record's checks. Start from {@link RecoveryConfig#defaults} with {@link #toBuilder}.
   */
  public static final class Builder {
    private int ejectAfter;
    private int readmitEvery;
    private int livenessEvery;
    private int livenessMisses;
    private double failureQuarantineS;
    private EngineRestartPolicy engineRestartPolicy;
    private String statePath;
    private boolean resume;
    private HealthConfig health;

    private Builder(RecoveryConfig from) {
      ejectAfter = from.ejectAfter;
      readmitEvery = from.readmitEvery;
      livenessEvery = from.livenessEvery;
      livenessMisses = from.livenessMisses;
      failureQuarantineS = from.failureQuarantineS;
      engineRestartPolicy = from.engineRestartPolicy;
      statePath = from.statePath;
      resume = from.resume;
      health = from.health;
    }

    public Builder ejectAfter(int value) {
      ejectAfter = value;
      return this;
    }

    public Builder readmitEvery(int value) {
      readmitEvery = value;
      return this;
    }

    public Builder livenessEvery(int value) {
      livenessEvery = value;
      return this;
    }

    public Builder livenessMisses(int value) {
      livenessMisses = value;
      return this;
    }

    public Builder failureQuarantineS(double value) {
      failureQuarantineS = value;
      return this;
    }

    public Builder engineRestartPolicy(EngineRestartPolicy value) {
      engineRestartPolicy = value;
      return this;
    }

    public Builder statePath(String value) {
      statePath = value;
      return this;
    }

    public Builder resume(boolean value) {
      resume = value;
      return this;
    }

    public Builder health(HealthConfig value) {
      health = value;
      return this;
    }

    public RecoveryConfig build() {
      return new RecoveryConfig(
          ejectAfter, readmitEvery, livenessEvery, livenessMisses, failureQuarantineS,
          engineRestartPolicy, statePath, resume, health);
    }
  }
}
