package narwhal.config;

import java.util.List;

/**
 * The {@code tenants} section: client authentication and per-tenant limits. With no tenants the
 * router serves every caller, as before (and says so at start-up).
 *
 * @param tenants the tenants, each with its keys and limits
 * @param operatorKeys keys that open {@code /metrics} and {@code /narwhal/state}; empty leaves
 *     them open (health and readiness routes are always open)
 */
public record TenantsConfig(List<TenantConfig> tenants, List<ApiKeyHash> operatorKeys) {

  public TenantsConfig {
    tenants = List.copyOf(tenants);
    operatorKeys = List.copyOf(operatorKeys);
  }

  public static TenantsConfig none() {
    return new TenantsConfig(List.of(), List.of());
  }

  /** True when clients must authenticate. */
  public boolean enabled() {
    return !tenants.isEmpty();
  }
}
