package narwhal.netty.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import narwhal.config.ClientAuthMode;
import narwhal.config.ServingTlsConfig;
import narwhal.testing.tls.TestCertificates;
import narwhal.testing.ManualScheduler;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The front-ends' TLS context: its settings, and the certificate reload on the manual clock. */
class ServerTlsTest {

  @TempDir Path dir;
  private final ManualScheduler checks = new ManualScheduler();

  private ServingTlsConfig servingFiles(TestCertificates ca) throws Exception {
    TestCertificates.Issued server = ca.server();
    Path cert = Files.copy(server.certFile(), dir.resolve("served.pem"), StandardCopyOption.REPLACE_EXISTING);
    Path key = Files.copy(server.keyFile(), dir.resolve("served.key"), StandardCopyOption.REPLACE_EXISTING);
    return ServingTlsConfig.of(cert, key).withReloadCheckS(5);
  }

  private static void replace(Path target, Path source) throws Exception {
    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
  }

  @Test
  void httpContext_servesTls13And12Only_modernCiphers_andAlpnHttp11() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    try (ServerTls tls = ServerTls.start(servingFiles(ca), checks)) {
      SslContext context = tls.httpContext();
      SSLEngine engine = context.newEngine(ByteBufAllocator.DEFAULT);

      assertThat(context.isServer()).isTrue();
      assertThat(engine.getEnabledProtocols()).containsExactlyInAnyOrder("TLSv1.3", "TLSv1.2");
      assertThat(context.cipherSuites()).isNotEmpty()
          .allMatch(c -> c.startsWith("TLS_AES_") || c.startsWith("TLS_CHACHA20_") || c.startsWith("TLS_ECDHE_"))
          .noneMatch(c -> c.contains("CBC"));
      assertThat(context.applicationProtocolNegotiator().protocols()).containsExactly("http/1.1");
      assertThat(engine.getNeedClientAuth()).isFalse();
      assertThat(engine.getWantClientAuth()).isFalse();
      assertThat(tls.describe()).isEqualTo("TLS");
    }
  }

  @Test
  void clientCa_requiresOrRequestsClientCertificates() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    ServingTlsConfig base = servingFiles(ca);
    try (ServerTls required = ServerTls.start(base.withClientCa(ca.caFile(), ClientAuthMode.REQUIRE), checks);
        ServerTls optional = ServerTls.start(base.withClientCa(ca.caFile(), ClientAuthMode.OPTIONAL), checks)) {
      assertThat(required.httpContext().newEngine(ByteBufAllocator.DEFAULT).getNeedClientAuth()).isTrue();
      assertThat(optional.httpContext().newEngine(ByteBufAllocator.DEFAULT).getWantClientAuth()).isTrue();
      assertThat(required.describe()).isEqualTo("TLS, client certificates required");
    }
  }

  @Test
  void changedFiles_areServedAfterTheNextCheck() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    ServingTlsConfig config = servingFiles(ca);
    try (ServerTls tls = ServerTls.start(config, checks)) {
      var first = tls.certificate();
      TestCertificates.Issued renewed = ca.issue("renewed", java.util.List.of("localhost"),
          java.time.Instant.now().minusSeconds(60), java.time.Instant.now().plusSeconds(3600), false);
      replace(config.certChain(), renewed.certFile());
      replace(config.privateKey(), renewed.keyFile());

      checks.advance(4, TimeUnit.SECONDS);
      assertThat(tls.certificate()).isEqualTo(first);
      checks.advance(1, TimeUnit.SECONDS);
      assertThat(tls.certificate()).isEqualTo(renewed.certificate());
      assertThat(tls.refusedReloads()).isZero();
    }
  }

  @Test
  void aHalfWrittenFile_keepsTheOldCertificate_andIsRefusedOncePerChange() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    ServingTlsConfig config = servingFiles(ca);
    try (ServerTls tls = ServerTls.start(config, checks)) {
      var first = tls.certificate();
      TestCertificates.Issued renewed = ca.issue("renewed", java.util.List.of("localhost"),
          java.time.Instant.now().minusSeconds(60), java.time.Instant.now().plusSeconds(3600), false);
      String newCert = Files.readString(renewed.certFile());
      Files.writeString(config.certChain(), newCert.substring(0, newCert.length() / 2));

      checks.advance(15, TimeUnit.SECONDS); // three checks of the same half-written file
      assertThat(tls.certificate()).isEqualTo(first);
      assertThat(tls.refusedReloads()).isEqualTo(1);

      // The certificate complete, its key not yet there: another content, another refusal.
      replace(config.certChain(), renewed.certFile());
      checks.advance(10, TimeUnit.SECONDS);
      assertThat(tls.certificate()).isEqualTo(first);
      assertThat(tls.refusedReloads()).isEqualTo(2);

      replace(config.privateKey(), renewed.keyFile());
      checks.advance(5, TimeUnit.SECONDS);
      assertThat(tls.certificate()).isEqualTo(renewed.certificate());
      assertThat(tls.refusedReloads()).isEqualTo(2);
    }
  }

  @Test
  void close_stopsTheChecks_andZeroNeverChecks() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    ServingTlsConfig config = servingFiles(ca);
    ServerTls tls = ServerTls.start(config, checks);
    assertThat(checks.pendingTasks()).isEqualTo(1);
    tls.close();
    assertThat(checks.pendingTasks()).isZero();

    try (ServerTls never = ServerTls.start(config.withReloadCheckS(0), checks)) {
      assertThat(checks.pendingTasks()).isZero();
    }
  }

  @Test
  void unreadableFiles_failTheStart_namingTheFile() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    ServingTlsConfig config = servingFiles(ca);
    Files.delete(config.privateKey());

    assertThatThrownBy(() -> ServerTls.start(config, checks))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("serving.tls: " + config.privateKey() + " does not exist");
  }
}
