package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import narwhal.config.ClientAuthMode;
import narwhal.config.ServingTlsConfig;
import narwhal.netty.tls.ServerTls;
import narwhal.testing.tls.TestCertificates;
import narwhal.testing.ManualScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** serving.tls.client_ca with client_auth require: no certificate (or a stranger's) no handshake. */
class MutualTlsFrontEndTest extends FrontEndTestSupport {

  @TempDir Path dir;
  private TestCertificates ca;
  private ServerTls tls;

  @Override
  HttpFrontEndOptions options() {
    ca = TestCertificates.create(dir);
    TestCertificates.Issued server = ca.server();
    tls = ServerTls.start(ServingTlsConfig.of(server.certFile(), server.keyFile())
        .withClientCa(ca.caFile(), ClientAuthMode.REQUIRE), new ManualScheduler());
    return super.options().withTls(tls.httpContext());
  }

  @AfterEach
  void stopTls() {
    tls.close();
  }

  private HttpResponse<String> health(SSLContext context) throws Exception {
    return HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build()
        .send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + frontEnd.port() + "/health"))
            .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void withAClientCertificateOfTheCa_theRequestIsServed() throws Exception {
    HttpResponse<String> response = health(ca.clientContext(ca.client("alice")));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.sslSession().orElseThrow().getLocalCertificates()).isNotEmpty();
  }

  @Test
  void withoutAClientCertificate_theHandshakeFails() {
    assertThatThrownBy(() -> health(ca.clientContext())).isInstanceOf(IOException.class);
  }

  @Test
  void withACertificateOfAnotherCa_theHandshakeFails() {
    TestCertificates stranger = TestCertificates.create(dir.resolve("other"), "other-ca");
    SSLContext context = clientTrusting(ca, stranger.client("mallory"));

    assertThatThrownBy(() -> health(context)).isInstanceOf(IOException.class);
  }

  /** Trusts {@code serverCa}; presents {@code client} (issued by some other CA). */
  private static SSLContext clientTrusting(TestCertificates serverCa, TestCertificates.Issued client) {
    try {
      java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("c", client.key(), new char[0], new java.security.cert.Certificate[] {client.certificate()});
      javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance("PKIX");
      kmf.init(keys, new char[0]);
      java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("ca", serverCa.caCertificate());
      javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return context;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
