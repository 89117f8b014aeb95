package narwhal.engine.http;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProtocols;
import io.netty.handler.ssl.SslProvider;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import io.netty.util.NetUtil;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import narwhal.config.EngineTlsConfig;
import narwhal.config.PemFiles;
import narwhal.config.PemFiles.PemException;
import org.jspecify.annotations.Nullable;

/**
 * How the router speaks TLS to {@code https://} engines, from {@code engine.tls}: TLS 1.3 and 1.2,
 * the engine's certificate verified against the JVM's trust store or {@code ca_bundle}, SNI (for
 * any host name, dotted or not) and the host name check against the URL's host (unless {@code verify_hostname} is false), and the
 * router's own certificate when an engine asks for one.
 *
 * <p>The context is built on the first {@code https://} connection: a fleet of plain engines never
 * loads a trust store. Thread-safe.
 */
public final class EngineTls {

  private final @Nullable List<X509Certificate> caBundle;
  private final @Nullable PrivateKey clientKey;
  private final @Nullable List<X509Certificate> clientChain;
  private final boolean verifyHostname;
  private volatile @Nullable SslContext context;

  private EngineTls(@Nullable List<X509Certificate> caBundle, @Nullable PrivateKey clientKey,
      @Nullable List<X509Certificate> clientChain, boolean verifyHostname) {
    this.caBundle = caBundle;
    this.clientKey = clientKey;
    this.clientChain = clientChain;
    this.verifyHostname = verifyHostname;
  }

  /** The JVM's trust store, no client certificate, host names verified. */
  public static EngineTls systemDefaults() {
    return new EngineTls(null, null, null, true);
  }

  /**
   * Reads the files {@code config} names, now.
   *
   * @throws IllegalArgumentException a file cannot be read, naming it (the fleet file parser has
   *     checked them already; this is for files that changed since, or a config built in code)
   */
  public static EngineTls of(EngineTlsConfig config) {
    try {
      List<X509Certificate> ca = config.caBundle() == null ? null : PemFiles.certificates(config.caBundle());
      PrivateKey key = null;
      List<X509Certificate> chain = null;
      if (config.clientCert() != null && config.clientKey() != null) {
        chain = PemFiles.certificates(config.clientCert());
        key = PemFiles.privateKey(config.clientKey());
        PemFiles.requireMatch(key, chain.get(0), config.clientCert(), config.clientKey());
      }
      return new EngineTls(ca, key, chain, config.verifyHostname());
    } catch (PemException e) {
      throw new IllegalArgumentException("engine.tls: " + e.getMessage(), e);
    }
  }

  /** False when engines' certificates are not checked against their URL's host (a development opt-out). */
  public boolean verifiesHostnames() {
    return verifyHostname;
  }

  /**
   * A handler for one connection to {@code engine}: SNI and the host name check use the URL's
   * host; the handshake must finish within {@code handshakeTimeoutMillis} (the connect timeout).
   */
  SslHandler newHandler(ByteBufAllocator alloc, EngineAddress engine, int handshakeTimeoutMillis) {
    SslHandler handler = context().newHandler(alloc, engine.host(), engine.port());
    handler.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
    nameServer(handler.engine(), engine.host());
    return handler;
  }

  /**
   * SNI for every host name: the JDK sends it only for names with a dot, and a fleet's engines are
   * often short service names ({@code decode-0}) behind a proxy that routes by SNI. Not for IP
   * literals, which SNI does not carry.
   */
  private static void nameServer(SSLEngine engine, String host) {
    if (NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)) {
      return;
    }
    SSLParameters parameters = engine.getSSLParameters();
    try {
      parameters.setServerNames(List.of(new SNIHostName(host)));
    } catch (IllegalArgumentException e) {
      return; // not a name SNI can carry (e.g. an underscore): the JDK's choice stands
    }
    engine.setSSLParameters(parameters);
  }

  private SslContext context() {
    SslContext built = context;
    if (built == null) {
      synchronized (this) {
        built = context;
        if (built == null) {
          built = build();
          context = built;
        }
      }
    }
    return built;
  }

  private SslContext build() {
    SslContextBuilder builder = SslContextBuilder.forClient()
        .sslProvider(SslProvider.JDK)
        .protocols(SslProtocols.TLS_v1_3, SslProtocols.TLS_v1_2)
        // "HTTPS": the JDK checks the certificate against the host given to newHandler (RFC 2818).
        .endpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
    if (caBundle != null) {
      builder.trustManager(caBundle); // else the JVM's default trust store
    }
    if (clientKey != null && clientChain != null) {
      builder.keyManager(clientKey, clientChain);
    }
    try {
      return builder.build();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot build the engines' TLS context: " + e.getMessage(), e);
    }
  }
}
