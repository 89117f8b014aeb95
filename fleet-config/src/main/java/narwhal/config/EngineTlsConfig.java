package narwhal.config;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The {@code engine.tls} section: how the router verifies {@code https://} engines and which
 * certificate it shows them (a Narwhal-JVM addition). Plain {@code http://} engines ignore it.
 *
 * @param caBundle the CAs engine certificates are verified against (PEM), or null for the JVM's
 *     trust store
 * @param clientCert the router's client certificate chain for engines that require one (mTLS),
 *     or null
 * @param clientKey that certificate's PKCS#8 key; set exactly when {@code clientCert} is
 * @param verifyHostname whether an engine's certificate must name the host of its URL; false is a
 *     development opt-out, logged at WARN
 */
public record EngineTlsConfig(
    @Nullable Path caBundle, @Nullable Path clientCert, @Nullable Path clientKey, boolean verifyHostname) {

  public EngineTlsConfig {
    if ((clientCert == null) != (clientKey == null)) {
      throw new IllegalArgumentException("clientCert and clientKey go together");
    }
  }

  /** The JVM's trust store, no client certificate, host names verified. */
  public static EngineTlsConfig defaults() {
    return new EngineTlsConfig(null, null, null, true);
  }

  /** A builder holding these fields, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public EngineTlsConfig withCaBundle(@Nullable Path value) {
    return toBuilder().caBundle(value).build();
  }

  /** Shows engines {@code cert} with its {@code key} (both, or both null for none). */
  public EngineTlsConfig withClientCertificate(@Nullable Path cert, @Nullable Path key) {
    return toBuilder().clientCert(cert).clientKey(key).build();
  }

  public EngineTlsConfig withVerifyHostname(boolean value) {
    return toBuilder().verifyHostname(value).build();
  }

  /** Builds an {@link EngineTlsConfig} by name; {@link #build} applies the record's checks. */
  public static final class Builder {
    private @Nullable Path caBundle;
    private @Nullable Path clientCert;
    private @Nullable Path clientKey;
    private boolean verifyHostname;

    private Builder(EngineTlsConfig from) {
      caBundle = from.caBundle;
      clientCert = from.clientCert;
      clientKey = from.clientKey;
      verifyHostname = from.verifyHostname;
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

    public Builder verifyHostname(boolean value) {
      verifyHostname = value;
      return this;
    }

    public EngineTlsConfig build() {
      return new EngineTlsConfig(caBundle, clientCert, clientKey, verifyHostname);
    }
  }
}
