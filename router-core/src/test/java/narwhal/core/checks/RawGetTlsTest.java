package narwhal.core.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.CertificateExpiredException;
import javax.net.ssl.SSLHandshakeException;
import narwhal.spi.TransportFailure;
import org.junit.jupiter.api.Test;

/** A certificate problem reads as one on a check's line, not as "unreachable". */
class RawGetTlsTest {

  private static final String TARGET = "GET https://10.0.0.7:8443/health";

  @Test
  void expiredEngineCertificate_leadsWithTheProblem_thenTheUrlAndTheFix() {
    SSLHandshakeException handshake = new SSLHandshakeException("PKIX path validation failed");
    handshake.initCause(new CertificateExpiredException("NotAfter: Tue Dec 01 10:00:00 UTC 2026"));
    TransportFailure failure = new TransportFailure(TransportFailure.Kind.CONNECT_FAILED,
        "TLS handshake with https://10.0.0.7:8443 failed", handshake);

    assertThat(RawGet.describe(failure, TARGET)).isEqualTo("certificate expired: " + TARGET
        + " (NotAfter: Tue Dec 01 10:00:00 UTC 2026); renew the engine's certificate");
  }

  @Test
  void aRefusedConnection_isStillUnreachable() {
    TransportFailure failure = new TransportFailure(TransportFailure.Kind.CONNECT_FAILED, "cannot connect",
        new java.net.ConnectException("Connection refused"));

    assertThat(RawGet.describe(failure, TARGET)).isEqualTo("unreachable: " + TARGET + ": connection refused");
  }
}
