package narwhal.testing.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.cert.CertificateExpiredException;
import java.util.List;
import narwhal.config.PemFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What TestCertificates writes is what the router reads, signed by the CA it names. */
class TestCertificatesTest {

  @TempDir Path dir;

  @Test
  void issuedFiles_readAsPem_andBelongTogether() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued server = ca.server();

    assertThat(PemFiles.chainAndKeyProblem(server.certFile(), server.keyFile())).isNull();
    assertThat(PemFiles.certificates(ca.caFile())).containsExactly(ca.caCertificate());
    server.certificate().verify(ca.caCertificate().getPublicKey());
    assertThat(server.certificate().getSubjectAlternativeNames())
        .extracting(n -> String.valueOf(n.get(1))).containsExactly("localhost", "127.0.0.1");
  }

  @Test
  void expiredAndWrongHost_areWhatTheySay() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ca.expiredServer().certificate().checkValidity())
        .isInstanceOf(CertificateExpiredException.class);
    assertThat(ca.wrongHostServer().certificate().getSubjectAlternativeNames())
        .extracting(n -> String.valueOf(n.get(1))).containsExactly("wrong-host.example");
    assertThat(ca.client("alice").certificate().getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
    assertThat(PemFiles.certificates(TestCertificates.writePem(dir.resolve("two.pem"),
        List.of(ca.server().certificate(), ca.caCertificate())))).hasSize(2);
  }
}
