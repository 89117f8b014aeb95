package narwhal.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A whole fleet file ({@code schema: "narwhal.fleet"}, {@code schema_version: 1}): the served
 * model, the engines and every configuration section. Immutable; change a copy with the {@code
 * with…} methods.
 *
 * @param model the one model the fleet serves; requests naming another get 404
 * @param hardware the free-form hardware description
 * @param engines the engines, in file order; unmodifiable
 * @param engineContract the pinned compatibility contract, or null for a development fleet
 * @param slo the latency targets
 * @param controller the monitor loop and role controller
 * @param serving admission, deadlines, retries and size limits
 * @param engine how the router talks to engines
 * @param recovery breaker, readmission and restart handling
 * @param profiles latency profiles
 * @param continuation opt-in stream continuation
 */
public record FleetConfig(
    String model,
    HardwareConfig hardware,
    List<EngineSpec> engines,
    @Nullable EngineContract engineContract,
    SloConfig slo,
    ControllerConfig controller,
    ServingConfig serving,
    EngineConfig engine,
    RecoveryConfig recovery,
    ProfilesConfig profiles,
    ContinuationConfig continuation) {

  /** The value of the fleet file's {@code schema} key. */
  public static final String SCHEMA = "narwhal.fleet";

  /** The only {@code schema_version} this build reads. */
  public static final int SCHEMA_VERSION = 1;

  public FleetConfig {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(hardware, "hardware");
    engines = List.copyOf(engines);
    Objects.requireNonNull(slo, "slo");
    Objects.requireNonNull(controller, "controller");
    Objects.requireNonNull(serving, "serving");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(recovery, "recovery");
    Objects.requireNonNull(profiles, "profiles");
    Objects.requireNonNull(continuation, "continuation");
  }

  /** A development fleet (no engine contract) with every section at its defaults. */
  public static FleetConfig of(String model, List<EngineSpec> engines) {
    return new FleetConfig(
        model,
        HardwareConfig.defaults(),
        engines,
        null,
        SloConfig.defaults(),
        ControllerConfig.defaults(),
        ServingConfig.defaults(),
        EngineConfig.defaults(),
        RecoveryConfig.defaults(),
        ProfilesConfig.defaults(),
        ContinuationConfig.defaults());
  }

  /** The engine with this instance id, if the fleet has one. */
  public Optional<EngineSpec> findEngine(String iid) {
    return engines.stream().filter(e -> e.iid().equals(iid)).findFirst();
  }

  /** True when no engine contract is configured: readmission relies on health checks alone. */
  public boolean isDevelopmentFleet() {
    return engineContract == null;
  }

  /**
   * The KV handoff age bound from the contract's lease, or null when there is no contract or no
   * lease (the handoff age is then unbounded). See {@link EngineContract#handoffBoundS()}.
   */
  public @Nullable Double handoffBoundS() {
    return engineContract == null ? null : engineContract.handoffBoundS();
  }

  public FleetConfig withModel(String value) {
    return new FleetConfig(
        value, hardware, engines, engineContract, slo, controller, serving, engine, recovery,
        profiles, continuation);
  }

  public FleetConfig withHardware(HardwareConfig value) {
    return new FleetConfig(
        model, value, engines, engineContract, slo, controller, serving, engine, recovery,
        profiles, continuation);
  }

  public FleetConfig withEngines(List<EngineSpec> value) {
    return new FleetConfig(
        model, hardware, value, engineContract, slo, controller, serving, engine, recovery,
        profiles, continuation);
  }

  public FleetConfig withEngineContract(@Nullable EngineContract value) {
    return new FleetConfig(
        model, hardware, engines, value, slo, controller, serving, engine, recovery, profiles,
        continuation);
  }

  public FleetConfig withSlo(SloConfig value) {
    return new FleetConfig(
        model, hardware, engines, engineContract, value, controller, serving, engine, recovery,
        profiles, continuation);
  }

  public FleetConfig withController(ControllerConfig value) {
    return new FleetConfig(
        model, hardware, engines, engineContract, slo, value, serving, engine, recovery,
        profiles, continuation);
  }

  public FleetConfig withServing(ServingConfig value) {
    return new FleetConfig(
        model, hardware, engines, engineContract, slo, controller, value, engine, recovery,
        profiles, continuation);
  }

  /**
   * Replaces the {@code engine} section. The engines keep the dialect and connector they already
   * resolved.
   */
  public FleetConfig withEngine(EngineConfig value) {
    return new FleetConfig(
        model, hardware, engines, engineContract, slo, controller, serving, value, recovery,
        profiles, continuation);
  }

  public FleetConfig withRecovery(RecoveryConfig value) {
    return new FleetConfig(
        model, hardware, engines, engineContract, slo, controller, serving, engine, value,
        profiles, continuation);
  }

  public FleetConfig withProfiles(ProfilesConfig value) {
    return new FleetConfig(
        model, hardware, engines, engineContract, slo, controller, serving, engine, recovery,
        value, continuation);
  }

  public FleetConfig withContinuation(ContinuationConfig value) {
    return new FleetConfig(
        model, hardware, engines, engineContract, slo, controller, serving, engine, recovery,
        profiles, value);
  }
}
