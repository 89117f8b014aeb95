package narwhal.config;

import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@code serving.tls} section: TLS on both front-ends (a Narwhal-JVM addition; the reference
 * leaves TLS to an ingress). Paths are read as given, relative ones against the working directory.
 *
 * @param certChain the server's certificate chain, PEM, its own certificate first
 * @param privateKey the server's private key, unencrypted PKCS#8 PEM
 * @param clientCa the CA bundle client certificates are verified against, or null
 * @param clientAuth whether clients are asked for a certificate: {@link ClientAuthMode#NONE} asks
 *     for none (and leaves {@code clientCa} unused); require and optional need {@code clientCa}.
 *     The fleet file's default is require when {@code client_ca} is set, none otherwise
 * @param reloadCheckS how often the certificate and key files are checked for a change, in
 *     seconds; 0 never checks
 */
public record ServingTlsConfig(
    Path certChain, Path privateKey, @Nullable Path clientCa, ClientAuthMode clientAuth, double reloadCheckS) {

  /** {@code serving.tls.reload_check_s} default. */
  public static final double DEFAULT_RELOAD_CHECK_S = 10.0;

  public ServingTlsConfig {
    Objects.requireNonNull(certChain, "certChain");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(clientAuth, "clientAuth");
    if (clientCa == null && clientAuth != ClientAuthMode.NONE) {
      throw new IllegalArgumentException("client_auth " + clientAuth.configName() + " needs a client CA");
    }
    if (!(reloadCheckS >= 0)) {
      throw new IllegalArgumentException("reloadCheckS must be >= 0, got " + reloadCheckS);
    }
  }

  /** Serving {@code certChain} and {@code privateKey}, no client certificates, the default reload check. */
  public static ServingTlsConfig of(Path certChain, Path privateKey) {
    return new ServingTlsConfig(certChain, privateKey, null, ClientAuthMode.NONE, DEFAULT_RELOAD_CHECK_S);
  }

  /** True when clients are asked for a certificate. */
  public boolean verifiesClients() {
    return clientAuth != ClientAuthMode.NONE;
  }

  /** A builder holding these fields, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** These settings verifying client certificates against {@code ca}, {@code mode} being require or optional. */
  public ServingTlsConfig withClientCa(Path ca, ClientAuthMode mode) {
    return toBuilder().clientCa(ca).clientAuth(mode).build();
  }

  public ServingTlsConfig withReloadCheckS(double value) {
    return toBuilder().reloadCheckS(value).build();
  }

  /** Builds a {@link ServingTlsConfig} by name; {@link #build} applies the record's checks. */
  public static final class Builder {
    private Path certChain;
    private Path privateKey;
    private @Nullable Path clientCa;
    private ClientAuthMode clientAuth;
    private double reloadCheckS;

    private Builder(ServingTlsConfig from) {
      certChain = from.certChain;
      privateKey = from.privateKey;
      clientCa = from.clientCa;
      clientAuth = from.clientAuth;
      reloadCheckS = from.reloadCheckS;
    }

    public Builder certChain(Path value) {
      certChain = value;
      return this;
    }

    public Builder privateKey(Path value) {
      privateKey = value;
      return this;
    }

    public Builder clientCa(@Nullable Path value) {
      clientCa = value;
      return this;
    }

    public Builder clientAuth(ClientAuthMode value) {
      clientAuth = value;
      return this;
    }

    public Builder reloadCheckS(double value) {
      reloadCheckS = value;
      return this;
    }

    public ServingTlsConfig build() {
      return new ServingTlsConfig(certChain, privateKey, clientCa, clientAuth, reloadCheckS);
    }
  }
}
