package narwhal.netty.tls;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProtocols;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;
import narwhal.config.ClientAuthMode;
import narwhal.config.PemFiles;
import narwhal.config.PemFiles.PemException;
import narwhal.config.ServingTlsConfig;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * TLS for the front-ends, from {@code serving.tls}: TLS 1.3 and 1.2 only, Netty's modern cipher
 * list ({@link Http2SecurityUtil#CIPHERS}: ECDHE with AES-GCM or ChaCha20-Poly1305; no RSA key
 * exchange, no CBC), the JDK provider, and client certificates verified against {@code
 * client_ca} when one is set.
 *
 * <p>The contexts are built once; the certificate under them is reloaded when its files change
 * (see {@link CertificateReloader}), so a renewal reaches new connections without a restart and
 * without touching open ones. The client CA is read once, at start.
 *
 * <p>Why the JDK provider alone: netty-tcnative (BoringSSL) would only be worth its native library
 * where it is measurably faster; see docs/tls-and-tenants.md, "TLS".
 */
public final class ServerTls implements AutoCloseable {

  /** The protocols served: nothing older than TLS 1.2. */
  public static final List<String> PROTOCOLS = List.of(SslProtocols.TLS_v1_3, SslProtocols.TLS_v1_2);

  private final ServingTlsConfig config;
  private final ReloadingKeyManager keys;
  private final @Nullable List<X509Certificate> clientCa;
  private final @Nullable CertificateReloader reloader;
  private final SslContext http;

  private ServerTls(ServingTlsConfig config, ReloadingKeyManager keys, @Nullable List<X509Certificate> clientCa,
      @Nullable CertificateReloader reloader) throws SSLException {
    this.config = config;
    this.keys = keys;
    this.clientCa = clientCa;
    this.reloader = reloader;
    this.http = contextBuilder()
        .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ApplicationProtocolNames.HTTP_1_1))
        .build();
  }

  /**
   * Reads the certificate, key and client CA now, and checks the certificate and key files every
   * {@code reload_check_s} on {@code checks} (a scheduler whose thread may read files: not an
   * event loop doing socket I/O).
   *
   * @throws IllegalArgumentException a file cannot be read or the key is not the certificate's,
   *     with the file named
   */
  public static ServerTls start(ServingTlsConfig config, Scheduler checks) {
    ServerIdentity identity;
    List<X509Certificate> clientCa = null;
    try {
      identity = ServerIdentity.load(config.certChain(), config.privateKey(),
          ServerIdentity.FileContents.read(config.certChain(), config.privateKey()));
      if (config.verifiesClients() && config.clientCa() != null) {
        clientCa = PemFiles.certificates(config.clientCa());
      }
    } catch (PemException e) {
      throw new IllegalArgumentException("serving.tls: " + e.getMessage(), e);
    }
    ReloadingKeyManager keys = new ReloadingKeyManager(identity);
    CertificateReloader reloader = config.reloadCheckS() > 0
        ? new CertificateReloader(config.certChain(), config.privateKey(), keys, checks,
            Math.max(1, Math.round(config.reloadCheckS() * 1e9)))
        : null;
    ServerTls tls;
    try {
      tls = new ServerTls(config, keys, clientCa, reloader);
    } catch (SSLException e) {
      throw new IllegalArgumentException("serving.tls: the TLS context cannot be built: " + e.getMessage(), e);
    }
    if (reloader != null) {
      reloader.start();
    }
    return tls;
  }

  /** The HTTP front-end's context: ALPN offers {@code http/1.1}. */
  public SslContext httpContext() {
    return http;
  }

  /**
   * A builder with every setting but ALPN: key manager, client authentication, protocols, ciphers,
   * provider. The gRPC front-end finishes it with grpc-netty's {@code GrpcSslContexts} (ALPN
   * {@code h2}) and restores these settings where that overrides them.
   */
  public SslContextBuilder contextBuilder() {
    SslContextBuilder builder = SslContextBuilder.forServer(keys)
        .sslProvider(SslProvider.JDK)
        .protocols(PROTOCOLS)
        .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE);
    if (clientCa != null) {
      builder.trustManager(clientCa)
          .clientAuth(config.clientAuth() == ClientAuthMode.REQUIRE ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
    }
    return builder;
  }

  /** The certificate new connections are shown now. */
  public X509Certificate certificate() {
    return keys.identity().leaf();
  }

  /** Changed certificate files that could not be loaded so far (tests); 0 without reload checks. */
  int refusedReloads() {
    return reloader == null ? 0 : reloader.refusals();
  }

  /** What the front-ends serve, for the start-up line: "TLS (client certificates required)". */
  public String describe() {
    return switch (config.clientAuth()) {
      case REQUIRE -> "TLS, client certificates required";
      case OPTIONAL -> "TLS, client certificates verified when sent";
      case NONE -> "TLS";
    };
  }

  /** Stops the reload checks; open connections are not affected. */
  @Override
  public void close() {
    if (reloader != null) {
      reloader.stop();
    }
  }
}
