package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import narwhal.testing.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** --tls-cert and --tls-key: the simulator as an https:// engine. */
class SimTlsTest {

  @TempDir Path dir;

  @Test
  void servesHttps_withTheGivenCertificate() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued cert = ca.server();
    try (SimEngine engine = SimEngine.start(SimOptions.builder().engineId("tls")
        .tls(new SimTls(cert.certFile(), cert.keyFile())).build())) {
      assertThat(engine.baseUrl()).isEqualTo("https://127.0.0.1:" + engine.port());

      HttpResponse<String> response = HttpClient.newBuilder().sslContext(ca.clientContext()).build()
          .send(HttpRequest.newBuilder(URI.create(engine.baseUrl() + "/v1/models")).GET().build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.sslSession().orElseThrow().getPeerCertificates()[0]).isEqualTo(cert.certificate());
    }
  }

  @Test
  void flags_setTls_andNeedBothFiles() {
    SimFlags flags = new SimFlags();
    new CommandLine(flags).parseArgs("--tls-cert", "c.pem", "--tls-key", "k.pem");
    assertThat(flags.toOptions().tls()).isEqualTo(new SimTls(Path.of("c.pem"), Path.of("k.pem")));

    SimFlags half = new SimFlags();
    new CommandLine(half).parseArgs("--tls-cert", "c.pem");
    assertThatThrownBy(half::toOptions).hasMessageContaining("--tls-cert and --tls-key go together");
    assertThat(new SimFlags().toOptions().tls()).isNull();
  }
}
