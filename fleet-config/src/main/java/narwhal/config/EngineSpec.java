package narwhal.config;

import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One engine of the fleet, as an {@code engines[]} entry describes it.
 *
 * @param iid the engine's instance id, unique in the fleet
 * @param url the engine's base URL: scheme, host and port only (no path, no trailing slash), so
 *     routes such as {@code /v1/completions} resolve against it
 * @param role the role the engine starts in
 * @param attestationUrl where the engine's attestation sidecar answers, or null when it has none
 * @param pin whether the controller must leave the engine in its starting role
 * @param sharedDevice the device this engine shares with others (development fleets that run
 *     several engines on one GPU), or null
 * @param dialect the wire dialect the router speaks to this engine: the entry's own {@code dialect}
 *     when it sets one, else {@code engine.dialect}
 * @param connector the KV connector, from {@code engine.connector}
 * @param dialectOptions the entry's free-form {@code dialect_options}, read only by its dialect
 *     (e.g. SGLang's {@code bootstrap_port}); comment keys dropped, JSON objects as {@code Map},
 *     arrays as {@code List}, JSON null as null; unmodifiable, empty when absent
 */
public record EngineSpec(
    String iid,
    URI url,
    EngineRole role,
    @Nullable URI attestationUrl,
    boolean pin,
    @Nullable String sharedDevice,
    String dialect,
    String connector,
    Map<String, @Nullable Object> dialectOptions) {

  public EngineSpec {
    Objects.requireNonNull(iid, "iid");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(connector, "connector");
    dialectOptions = Collections.unmodifiableMap(
        new LinkedHashMap<>(Objects.requireNonNull(dialectOptions, "dialectOptions")));
  }

  /** As the canonical constructor, without dialect options. */
  public EngineSpec(String iid, URI url, EngineRole role, @Nullable URI attestationUrl, boolean pin,
      @Nullable String sharedDevice, String dialect, String connector) {
    this(iid, url, role, attestationUrl, pin, sharedDevice, dialect, connector, Map.of());
  }

  /** An unpinned engine speaking the default dialect over the default connector. */
  public static EngineSpec of(String iid, URI url, EngineRole role) {
    EngineConfig engine = EngineConfig.defaults();
    return new EngineSpec(iid, url, role, null, false, null, engine.dialect(), engine.connector());
  }

  /** As {@link #of(String, URI, EngineRole)}, taking the URL as text. */
  public static EngineSpec of(String iid, String url, EngineRole role) {
    return of(iid, URI.create(url), role);
  }

  public boolean canPrefill() {
    return role.canPrefill();
  }

  public boolean canDecode() {
    return role.canDecode();
  }

  /** A builder holding these fields, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public EngineSpec withRole(EngineRole value) {
    return toBuilder().role(value).build();
  }

  public EngineSpec withPin(boolean value) {
    return toBuilder().pin(value).build();
  }

  public EngineSpec withAttestationUrl(@Nullable URI value) {
    return toBuilder().attestationUrl(value).build();
  }

  public EngineSpec withSharedDevice(@Nullable String value) {
    return toBuilder().sharedDevice(value).build();
  }

  public EngineSpec withDialect(String value) {
    return toBuilder().dialect(value).build();
  }

  public EngineSpec withDialectOptions(Map<String, @Nullable Object> value) {
    return toBuilder().dialectOptions(value).build();
  }

  /**
   * Builds an {@link EngineSpec} by name rather than by position; {@link #build} applies the
   * record's checks. Start from {@link EngineSpec#of} with {@link #toBuilder}.
   */
  public static final class Builder {
    private String iid;
    private URI url;
    private EngineRole role;
    private @Nullable URI attestationUrl;
    private boolean pin;
    private @Nullable String sharedDevice;
    private String dialect;
    private String connector;
    private Map<String, @Nullable Object> dialectOptions;

    private Builder(EngineSpec from) {
      iid = from.iid;
      url = from.url;
      role = from.role;
      attestationUrl = from.attestationUrl;
      pin = from.pin;
      sharedDevice = from.sharedDevice;
      dialect = from.dialect;
      connector = from.connector;
      dialectOptions = from.dialectOptions;
    }

    public Builder iid(String value) {
      iid = value;
      return this;
    }

    public Builder url(URI value) {
      url = value;
      return this;
    }

    public Builder role(EngineRole value) {
      role = value;
      return this;
    }

    public Builder attestationUrl(@Nullable URI value) {
      attestationUrl = value;
      return this;
    }

    public Builder pin(boolean value) {
      pin = value;
      return this;
    }

    public Builder sharedDevice(@Nullable String value) {
      sharedDevice = value;
      return this;
    }

    public Builder dialect(String value) {
      dialect = value;
      return this;
    }

    public Builder connector(String value) {
      connector = value;
      return this;
    }

    public Builder dialectOptions(Map<String, @Nullable Object> value) {
      dialectOptions = value;
      return this;
    }

    public EngineSpec build() {
      return new EngineSpec(
          iid, url, role, attestationUrl, pin, sharedDevice, dialect, connector, dialectOptions);
    }
  }
}
