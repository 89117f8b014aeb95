package narwhal.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A whole fleet file ({@code schema: "narwhal.fleet"}, {@code schema_version: 1}): the served
 * model, the engines and every configuration section. Immutable; change a copy with the {@code
 * with…} methods, or several fields at once with {@link #toBuilder}. Each config record's withers
 * go through its builder, so a new field means a builder setter, never an edit of every wither.
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
 * @param tenants client authentication and per-tenant limits (none: every caller is served)
 * @param cache cache-aware placement (off by default)
 * @param cluster the etcd cluster active-active replicas share state through, or null for a router
 *     that runs alone
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
    ContinuationConfig continuation,
    TenantsConfig tenants,
    CacheConfig cache,
    @Nullable ClusterConfig cluster) {

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
    Objects.requireNonNull(tenants, "tenants");
    Objects.requireNonNull(cache, "cache");
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
        ContinuationConfig.defaults(),
        TenantsConfig.none(),
        CacheConfig.defaults(),
        null);
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

  /** A builder holding this fleet's fields, to change a few of them. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public FleetConfig withModel(String value) {
    return toBuilder().model(value).build();
  }

  public FleetConfig withHardware(HardwareConfig value) {
    return toBuilder().hardware(value).build();
  }

  public FleetConfig withEngines(List<EngineSpec> value) {
    return toBuilder().engines(value).build();
  }

  public FleetConfig withEngineContract(@Nullable EngineContract value) {
    return toBuilder().engineContract(value).build();
  }

  public FleetConfig withSlo(SloConfig value) {
    return toBuilder().slo(value).build();
  }

  public FleetConfig withController(ControllerConfig value) {
    return toBuilder().controller(value).build();
  }

  public FleetConfig withServing(ServingConfig value) {
    return toBuilder().serving(value).build();
  }

  /**
   * Replaces the {@code engine} section. The engines keep the dialect and connector they already
   * resolved.
   */
  public FleetConfig withEngine(EngineConfig value) {
    return toBuilder().engine(value).build();
  }

  public FleetConfig withRecovery(RecoveryConfig value) {
    return toBuilder().recovery(value).build();
  }

  public FleetConfig withProfiles(ProfilesConfig value) {
    return toBuilder().profiles(value).build();
  }

  public FleetConfig withContinuation(ContinuationConfig value) {
    return toBuilder().continuation(value).build();
  }

  public FleetConfig withTenants(TenantsConfig value) {
    return toBuilder().tenants(value).build();
  }

  public FleetConfig withCache(CacheConfig value) {
    return toBuilder().cache(value).build();
  }

  public FleetConfig withCluster(@Nullable ClusterConfig value) {
    return toBuilder().cluster(value).build();
  }

  /**
   * Builds a {@link FleetConfig} by name rather than by position; {@link #build} applies the
   * record's checks. Start from {@link FleetConfig#of} or a parsed fleet with {@link #toBuilder}.
   */
  public static final class Builder {
    private String model;
    private HardwareConfig hardware;
    private List<EngineSpec> engines;
    private @Nullable EngineContract engineContract;
    private SloConfig slo;
    private ControllerConfig controller;
    private ServingConfig serving;
    private EngineConfig engine;
    private RecoveryConfig recovery;
    private ProfilesConfig profiles;
    private ContinuationConfig continuation;
    private TenantsConfig tenants;
    private CacheConfig cache;
    private @Nullable ClusterConfig cluster;

    private Builder(FleetConfig from) {
      model = from.model;
      hardware = from.hardware;
      engines = from.engines;
      engineContract = from.engineContract;
      slo = from.slo;
      controller = from.controller;
      serving = from.serving;
      engine = from.engine;
      recovery = from.recovery;
      profiles = from.profiles;
      continuation = from.continuation;
      tenants = from.tenants;
      cache = from.cache;
      cluster = from.cluster;
    }

    public Builder model(String value) {
      model = value;
      return this;
    }

    public Builder hardware(HardwareConfig value) {
      hardware = value;
      return this;
    }

    public Builder engines(List<EngineSpec> value) {
      engines = value;
      return this;
    }

    public Builder engineContract(@Nullable EngineContract value) {
      engineContract = value;
      return this;
    }

    public Builder slo(SloConfig value) {
      slo = value;
      return this;
    }

    public Builder controller(ControllerConfig value) {
      controller = value;
      return this;
    }

    public Builder serving(ServingConfig value) {
      serving = value;
      return this;
    }

    public Builder engine(EngineConfig value) {
      engine = value;
      return this;
    }

    public Builder recovery(RecoveryConfig value) {
      recovery = value;
      return this;
    }

    public Builder profiles(ProfilesConfig value) {
      profiles = value;
      return this;
    }

    public Builder tenants(TenantsConfig value) {
      tenants = value;
      return this;
    }

    public Builder cache(CacheConfig value) {
      cache = value;
      return this;
    }

    public Builder cluster(@Nullable ClusterConfig value) {
      cluster = value;
      return this;
    }

    public Builder continuation(ContinuationConfig value) {
      continuation = value;
      return this;
    }

    public FleetConfig build() {
      return new FleetConfig(
          model, hardware, engines, engineContract, slo, controller, serving, engine, recovery,
          profiles, continuation, tenants, cache, cluster);
    }
  }
}
