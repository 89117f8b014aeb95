package narwhal.api;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Who sent a request: an authenticated tenant, by its configured name, or {@link #ANONYMOUS} when
 * the router has no tenants and serves every caller. Never the key: the name is what journal rows
 * and metric labels carry.
 *
 * @param tenant the tenant's configured name, or null for the anonymous caller
 */
public record Caller(@Nullable String tenant) {

  /** The caller of a router without tenants. */
  public static final Caller ANONYMOUS = new Caller(null);

  /** The authenticated tenant {@code name}. */
  public static Caller tenant(String name) {
    return new Caller(Objects.requireNonNull(name, "name"));
  }

  public boolean anonymous() {
    return tenant == null;
  }
}
