package narwhal.config;

import static narwhal.config.NumberRange.NON_NEGATIVE;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code serving.tls} and {@code engine.tls}. Each file they name is read here, once: it
 * must exist, be readable and hold what the key says (a certificate, a PKCS#8 key, a CA bundle),
 * and a key must belong to its certificate, so a router never starts to fail its first handshake.
 * Problems name the file and the key's JSON path, never the file's content.
 */
final class TlsSectionParsers {

  /** The spellings of {@code client_auth}, the default ({@code require}) first. */
  private static final Map<String, ClientAuthMode> CLIENT_AUTH = clientAuthChoices();

  private TlsSectionParsers() {}

  /** {@code serving.tls}, or null when the section is absent (or JSON null): plain TCP. */
  static @Nullable ServingTlsConfig serving(ConfigObject serving) {
    if (!serving.isSet("tls")) {
      return null;
    }
    ConfigObject t = serving.object("tls");
    if (!serving.isValid("tls")) {
      return null;
    }
    Path certChain = path(t, t.requiredString("cert_chain"));
    Path privateKey = path(t, t.requiredString("private_key"));
    Path clientCa = path(t, t.optionalString("client_ca"));
    ClientAuthMode clientAuth = t.choice("client_auth", CLIENT_AUTH, false);
    double reloadCheckS = t.number("reload_check_s", ServingTlsConfig.DEFAULT_RELOAD_CHECK_S, NON_NEGATIVE);
    t.finish();
    if (clientAuth != null && clientCa == null && t.isValid("client_ca")) {
      t.error("client_auth", "needs client_ca: the CA bundle client certificates are verified against");
    }
    checkPair(t, "cert_chain", certChain, "private_key", privateKey);
    certificates(t, "client_ca", clientCa);
    if (certChain == null || privateKey == null) {
      return null;
    }
    ClientAuthMode mode = clientCa == null ? ClientAuthMode.NONE
        : clientAuth == null ? ClientAuthMode.REQUIRE : clientAuth;
    return new ServingTlsConfig(certChain, privateKey, clientCa, mode, reloadCheckS);
  }

  /** {@code engine.tls}: the defaults (system trust store, host names verified) when absent. */
  static EngineTlsConfig engine(ConfigObject engine) {
    EngineTlsConfig d = EngineTlsConfig.defaults();
    if (!engine.isSet("tls")) {
      return d;
    }
    ConfigObject t = engine.object("tls");
    if (!engine.isValid("tls")) {
      return d;
    }
    Path caBundle = path(t, t.optionalString("ca_bundle"));
    Path clientCert = path(t, t.optionalString("client_cert"));
    Path clientKey = path(t, t.optionalString("client_key"));
    boolean verifyHostname = t.bool("verify_hostname", d.verifyHostname());
    t.finish();
    certificates(t, "ca_bundle", caBundle);
    if ((clientCert == null) != (clientKey == null) && t.isValid("client_cert") && t.isValid("client_key")) {
      t.error(clientCert == null ? "client_cert" : "client_key",
          "client_cert and client_key go together: set both for a client certificate (mTLS to engines), or neither");
      return d.withCaBundle(caBundle).withVerifyHostname(verifyHostname);
    }
    checkPair(t, "client_cert", clientCert, "client_key", clientKey);
    return new EngineTlsConfig(caBundle, clientCert, clientKey, verifyHostname);
  }

  private static Map<String, ClientAuthMode> clientAuthChoices() {
    Map<String, ClientAuthMode> out = new LinkedHashMap<>();
    out.put(ClientAuthMode.REQUIRE.configName(), ClientAuthMode.REQUIRE);
    out.put(ClientAuthMode.OPTIONAL.configName(), ClientAuthMode.OPTIONAL);
    return Collections.unmodifiableMap(out);
  }

  private static @Nullable Path path(ConfigObject t, @Nullable String text) {
    return text == null || text.isBlank() ? null : Path.of(text);
  }

  /** The file's certificates, or null when there is no file or it has a problem (recorded). */
  private static @Nullable List<X509Certificate> certificates(ConfigObject t, String key, @Nullable Path file) {
    if (file == null) {
      return null;
    }
    try {
      return PemFiles.certificates(file);
    } catch (PemFiles.PemException e) {
      t.error(key, e.getMessage());
      return null;
    }
  }

  /**
   * Reads a certificate chain and its key, each once, recording a problem with either, or with
   * the key not being the chain's first certificate's (at the key's path).
   */
  private static void checkPair(ConfigObject t, String chainKey, @Nullable Path chainFile, String keyKey,
      @Nullable Path keyFile) {
    List<X509Certificate> chain = certificates(t, chainKey, chainFile);
    if (keyFile == null) {
      return;
    }
    try {
      PrivateKey key = PemFiles.privateKey(keyFile);
      if (chain != null) {
        PemFiles.requireMatch(key, chain.get(0), chainFile, keyFile);
      }
    } catch (PemFiles.PemException e) {
      t.error(keyKey, e.getMessage());
    }
  }
}
