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

  public EngineSpec withRole(EngineRole newRole) {
    return new EngineSpec(iid, url, newRole, attestationUrl, pin, sharedDevice, dialect, connector, dialectOptions);
  }

  public EngineSpec withPin(boolean newPin) {
    return new EngineSpec(iid, url, role, attestationUrl, newPin, sharedDevice, dialect, connector, dialectOptions);
  }

  public EngineSpec withAttestationUrl(@Nullable URI newUrl) {
    return new EngineSpec(iid, url, role, newUrl, pin, sharedDevice, dialect, connector, dialectOptions);
  }

  public EngineSpec withSharedDevice(@Nullable String newDevice) {
    return new EngineSpec(iid, url, role, attestationUrl, pin, newDevice, dialect, connector, dialectOptions);
  }

  public EngineSpec withDialect(String newDialect) {
    return new EngineSpec(iid, url, role, attestationUrl, pin, sharedDevice, newDialect, connector, dialectOptions);
  }

  public EngineSpec withDialectOptions(Map<String, @Nullable Object> newOptions) {
    return new EngineSpec(iid, url, role, attestationUrl, pin, sharedDevice, dialect, connector, newOptions);
  }
}
