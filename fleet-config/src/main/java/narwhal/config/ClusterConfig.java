package narwhal.config;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@code cluster} section: several routers serving one fleet as active-active replicas that
 * share engine verdicts, roles, load, tenant budgets and profiles through etcd. Absent, the router
 * runs alone and touches no etcd.
 *
 * @param endpoints the etcd members' client URLs ({@code http://} or {@code https://})
 * @param name this replica's name among the replicas, or null for its host and port
 * @param keyPrefix where this fleet's keys live in etcd (one prefix per fleet)
 * @param leaseTtlS the replica's lease: how long after it stops renewing (killed, paused, cut off)
 *     its membership, its election and its shares of tenant budgets lapse
 * @param requestTimeoutS the longest one etcd request may take before it counts as failed
 * @param loadIntervalS how often each replica sends its resident work to the others
 * @param user the etcd user, or null when etcd has no authentication
 * @param passwordEnv the environment variable holding that user's password ({@code user} set)
 * @param password the password read from it at start; never printed
 * @param caBundle CAs the etcd members' certificates are verified against (PEM), or null
 * @param clientCert this replica's client certificate for etcd (mTLS), or null
 * @param clientKey that certificate's PKCS#8 key; set exactly when {@code clientCert} is
 */
public record ClusterConfig(
    List<URI> endpoints,
    @Nullable String name,
    String keyPrefix,
    int leaseTtlS,
    double requestTimeoutS,
    double loadIntervalS,
    @Nullable String user,
    @Nullable String passwordEnv,
    ClusterPassword password,
    @Nullable Path caBundle,
    @Nullable Path clientCert,
    @Nullable Path clientKey) {

  public static final String DEFAULT_KEY_PREFIX = "/narwhal";
  public static final int DEFAULT_LEASE_TTL_S = 5;
  /** etcd grants no lease shorter than about two seconds. */
  public static final int MIN_LEASE_TTL_S = 2;
  public static final double DEFAULT_REQUEST_TIMEOUT_S = 1.0;
  public static final double DEFAULT_LOAD_INTERVAL_S = 0.1;

  public ClusterConfig {
    endpoints = List.copyOf(endpoints);
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("a cluster needs at least one etcd endpoint");
    }
    Objects.requireNonNull(keyPrefix, "keyPrefix");
    Objects.requireNonNull(password, "password");
    if ((clientCert == null) != (clientKey == null)) {
      throw new IllegalArgumentException("clientCert and clientKey go together");
    }
    if (leaseTtlS < MIN_LEASE_TTL_S) {
      throw new IllegalArgumentException("lease_ttl_s must be at least " + MIN_LEASE_TTL_S);
    }
  }

  private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,99}");

  /**
   * True for a usable replica name: 1-100 letters, digits, '.', '_', ':' or '-', starting with a
   * letter or digit (it becomes an etcd key segment and a journal field).
   */
  public static boolean validName(String name) {
    return NAME.matcher(name).matches();
  }

  /** A cluster on {@code endpoints} with every other key at its default. */
  public static ClusterConfig of(List<URI> endpoints) {
    return new ClusterConfig(endpoints, null, DEFAULT_KEY_PREFIX, DEFAULT_LEASE_TTL_S, DEFAULT_REQUEST_TIMEOUT_S,
        DEFAULT_LOAD_INTERVAL_S, null, null, ClusterPassword.none(), null, null, null);
  }

  public ClusterConfig withName(@Nullable String value) {
    return toBuilder().name(value).build();
  }

  public ClusterConfig withKeyPrefix(String value) {
    return toBuilder().keyPrefix(value).build();
  }

  public ClusterConfig withLeaseTtlS(int value) {
    return toBuilder().leaseTtlS(value).build();
  }

  /** A builder holding these fields, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Builds a {@link ClusterConfig} by name; {@link #build} applies the record's checks. */
  public static final class Builder {
    private List<URI> endpoints;
    private @Nullable String name;
    private String keyPrefix;
    private int leaseTtlS;
    private double requestTimeoutS;
    private double loadIntervalS;
    private @Nullable String user;
    private @Nullable String passwordEnv;
    private ClusterPassword password;
    private @Nullable Path caBundle;
    private @Nullable Path clientCert;
    private @Nullable Path clientKey;

    private Builder(ClusterConfig from) {
      endpoints = from.endpoints;
      name = from.name;
      keyPrefix = from.keyPrefix;
      leaseTtlS = from.leaseTtlS;
      requestTimeoutS = from.requestTimeoutS;
      loadIntervalS = from.loadIntervalS;
      user = from.user;
      passwordEnv = from.passwordEnv;
      password = from.password;
      caBundle = from.caBundle;
      clientCert = from.clientCert;
      clientKey = from.clientKey;
    }

    public Builder endpoints(List<URI> value) {
      endpoints = value;
      return this;
    }

    public Builder name(@Nullable String value) {
      name = value;
      return this;
    }

    public Builder keyPrefix(String value) {
      keyPrefix = value;
      return this;
    }

    public Builder leaseTtlS(int value) {
      leaseTtlS = value;
      return this;
    }

    public Builder requestTimeoutS(double value) {
      requestTimeoutS = value;
      return this;
    }

    public Builder loadIntervalS(double value) {
      loadIntervalS = value;
      return this;
    }

    public Builder user(@Nullable String value) {
      user = value;
      return this;
    }

    public Builder passwordEnv(@Nullable String value) {
      passwordEnv = value;
      return this;
    }

    public Builder password(ClusterPassword value) {
      password = value;
      return this;
    }

    public Builder caBundle(@Nullable Path value) {
      caBundle = value;
      return this;
    }

    public Builder clientCert(@Nullable Path value) {
      clientCert = value;
      return this;
    }

    public Builder clientKey(@Nullable Path value) {
      clientKey = value;
      return this;
    }

    public ClusterConfig build() {
      return new ClusterConfig(endpoints, name, keyPrefix, leaseTtlS, requestTimeoutS, loadIntervalS, user, passwordEnv, password, caBundle, clientCert, clientKey);
    }
  }

  /** True when the etcd endpoints are reached over TLS. */
  public boolean tls() {
    return endpoints.stream().anyMatch(u -> "https".equalsIgnoreCase(u.getScheme()));
  }
}
