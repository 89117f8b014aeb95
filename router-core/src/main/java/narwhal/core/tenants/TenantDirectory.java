package narwhal.core.tenants;

import java.security.SecureRandom;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import narwhal.api.RouterError;
import narwhal.api.AuthErrors;
import narwhal.api.Authentication;
import narwhal.api.Caller;
import narwhal.api.ClientAuthenticator;
import narwhal.config.ApiKeyHash;
import narwhal.config.TenantConfig;
import narwhal.config.TenantsConfig;
import narwhal.core.admission.TenantQuota;
import narwhal.core.admission.TokenBucket;
import org.jspecify.annotations.Nullable;

/**
 * The {@code tenants} section as the router uses it: every configured key by its key id, each
 * tenant's model list and {@link TenantQuota}.
 *
 * <p>A presented key {@code nwk_<id>_<secret>} is looked up by the id it carries, so finding its
 * hash costs one map lookup whatever the number of keys, and then exactly one salted hash and a
 * constant-time comparison ({@link ApiKeyHash#matches}). A key whose id is unknown, or that is not
 * shaped like a key at all, is compared against a dummy hash all the same, so the time a refusal
 * takes does not tell a caller which key ids exist.
 *
 * <p>Immutable after construction apart from the quotas' counters; thread-safe.
 */
public final class TenantDirectory implements ClientAuthenticator {

  /** Reasons of {@code narwhal_auth_failures_total}: every value this class reports. */
  public static final List<String> FAILURE_REASONS =
      List.of("missing", "unknown", "malformed", "ambiguous", "model_not_allowed", "operator");

  private static final String BEARER = "bearer ";
  private static final String SCHEME = "bearer";

  private final Map<String, Entry> byKeyId = new HashMap<>();
  private final Map<String, Tenant> byName = new HashMap<>();
  private final boolean operatorKeys;
  private final boolean required;
  private final ApiKeyHash dummy;
  private final Consumer<String> failures;

  /** One configured key: a tenant's (tenant set) or an operator's (tenant null). */
  private record Entry(ApiKeyHash hash, @Nullable Tenant tenant) {}

  /** One tenant: its config and its admission limits. */
  private record Tenant(TenantConfig config, TenantQuota quota) {}

  /**
   * @param queueCapacity {@code serving.queue_capacity}, of which each tenant gets its {@code
   *     queue_share}
   * @param failures told the reason of each refusal ({@link #FAILURE_REASONS}), for the metric
   */
  public TenantDirectory(TenantsConfig config, int queueCapacity, Consumer<String> failures) {
    this.failures = failures;
    this.required = config.enabled();
    for (TenantConfig t : config.tenants()) {
      TokenBucket rate = t.ratePerS() > 0 ? new TokenBucket(t.ratePerS(), Math.max(1, t.burst())) : null;
      // At least one place, unless the fleet has no queue at all: a share that rounds to zero
      // would make the tenant's requests the only ones refused while the queue has room.
      int queued = (int) Math.floor(t.queueShare() * queueCapacity);
      if (t.queueShare() > 0 && queueCapacity > 0) {
        queued = Math.max(1, queued);
      }
      Tenant tenant = new Tenant(t, new TenantQuota(t.name(), t.maxInFlight(), queued, rate));
      byName.put(t.name(), tenant);
      t.keys().forEach(k -> byKeyId.put(k.keyId(), new Entry(k, tenant)));
    }
    config.operatorKeys().forEach(k -> byKeyId.put(k.keyId(), new Entry(k, null)));
    this.operatorKeys = !config.operatorKeys().isEmpty();
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    this.dummy = ApiKeyHash.of("nwk_00000000_" + "0".repeat(43), salt);
  }

  /** A directory without tenants: every caller is let in anonymously. */
  public static TenantDirectory none() {
    return new TenantDirectory(TenantsConfig.none(), 0, reason -> {});
  }

  @Override
  public boolean required() {
    return required;
  }

  @Override
  public Authentication authenticate(List<String> authorization) {
    if (!required) {
      return Authentication.accepted(Caller.ANONYMOUS);
    }
    Authentication malformed = malformed(authorization);
    if (malformed != null) {
      return malformed;
    }
    String key = authorization.isEmpty() ? null : bearer(authorization.get(0));
    if (key == null) {
      return refuse(AuthErrors.missing(), "missing");
    }
    Entry entry = find(key);
    if (entry == null || entry.tenant() == null) {
      // An operator key opens the operator routes only, not completions.
      return refuse(AuthErrors.unknown(), "unknown");
    }
    return Authentication.accepted(Caller.tenant(entry.tenant().config().name()));
  }

  @Override
  public Authentication authenticateOperator(List<String> authorization) {
    if (!operatorKeys) {
      return Authentication.accepted(Caller.ANONYMOUS);
    }
    Authentication malformed = malformed(authorization);
    if (malformed != null) {
      return malformed;
    }
    String key = authorization.isEmpty() ? null : bearer(authorization.get(0));
    Entry entry = key == null ? null : find(key);
    if (entry == null || entry.tenant() != null) {
      return refuse(AuthErrors.operatorOnly(), "operator");
    }
    return Authentication.accepted(Caller.ANONYMOUS);
  }

  /**
   * The 403 for a tenant that may not use {@code model}, or null when it may (and for the
   * anonymous caller of a router without tenants).
   */
  public @Nullable RouterError forbidden(Caller caller, String model) {
    Tenant tenant = tenant(caller);
    if (tenant == null || tenant.config().allows(model)) {
      return null;
    }
    failures.accept("model_not_allowed");
    return AuthErrors.modelNotAllowed(tenant.config().name(), model);
  }

  /** The limits of {@code caller}'s tenant, or null for the anonymous caller. */
  public @Nullable TenantQuota quota(Caller caller) {
    Tenant tenant = tenant(caller);
    return tenant == null ? null : tenant.quota();
  }

  /** Every tenant's limits (what router replicas share a budget of), by tenant name. */
  public Map<String, TenantQuota> quotas() {
    Map<String, TenantQuota> out = new java.util.TreeMap<>();
    byName.forEach((name, t) -> out.put(name, t.quota()));
    return out;
  }

  /** The configured tenants' names: the bounded set of values of the {@code tenant} metric label. */
  public List<String> names() {
    return byName.keySet().stream().sorted().toList();
  }

  private @Nullable Tenant tenant(Caller caller) {
    String name = caller.tenant();
    return name == null ? null : byName.get(name);
  }

  /** The entry whose key {@code key} is, after exactly one hash comparison whatever happens. */
  private @Nullable Entry find(String key) {
    String id = ApiKeyHash.keyIdOf(key);
    Entry entry = id == null ? null : byKeyId.get(id);
    if (entry == null) {
      dummy.matches(key);
      return null;
    }
    return entry.hash().matches(key) ? entry : null;
  }

  private Authentication refuse(RouterError error, String reason) {
    failures.accept(reason);
    return Authentication.refused(error, reason);
  }

  /**
   * The refusal for values no key can be taken from without guessing: more than one (400), or the
   * {@code Bearer} scheme followed by a tab or other whitespace than a space (RFC 6750's {@code
   * "Bearer" 1*SP b64token}); null when there is at most one well-formed value (or none).
   */
  private @Nullable Authentication malformed(List<String> authorization) {
    if (authorization.size() > 1) {
      return refuse(AuthErrors.ambiguous(authorization.size()), "ambiguous");
    }
    if (authorization.size() == 1) {
      String value = authorization.get(0).strip();
      if (value.length() > SCHEME.length() && value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
        char separator = value.charAt(SCHEME.length());
        if (separator != ' ' && (Character.isWhitespace(separator) || Character.isISOControl(separator))) {
          return refuse(AuthErrors.malformedBearer(), "malformed");
        }
      }
    }
    return null;
  }

  /** The credentials of {@code Authorization: Bearer <key>} (scheme case-insensitive), or null. */
  private static @Nullable String bearer(@Nullable String authorization) {
    if (authorization == null) {
      return null;
    }
    String value = authorization.strip();
    if (value.length() <= BEARER.length()
        || !value.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)) {
      return null;
    }
    String key = value.substring(BEARER.length()).strip();
    return key.isEmpty() ? null : key;
  }
}
