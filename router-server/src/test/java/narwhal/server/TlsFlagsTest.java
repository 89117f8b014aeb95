package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import narwhal.config.ClientAuthMode;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.ServingTlsConfig;
import narwhal.testing.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** serve's --tls-cert, --tls-key and --tls-client-ca over the fleet file's serving.tls. */
class TlsFlagsTest {

  @TempDir Path dir;

  private static final FleetConfig PLAIN = FleetConfig.of("m", List.of(
      EngineSpec.of("p0", "http://127.0.0.1:8100", EngineRole.PREFILL),
      EngineSpec.of("d0", "http://127.0.0.1:8101", EngineRole.DECODE)));

  private static TlsFlags flags(String... args) {
    TlsFlags flags = new TlsFlags();
    new CommandLine(flags).parseArgs(args);
    return flags;
  }

  @Test
  void noFlags_leaveTheConfigAsItIs() {
    assertThat(flags().applyTo(PLAIN)).isSameAs(PLAIN);
  }

  @Test
  void certAndKey_turnTlsOn_andTheClientCaRequiresCertificates() {
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued server = ca.server();

    FleetConfig config = flags("--tls-cert", server.certFile().toString(), "--tls-key", server.keyFile().toString(),
        "--tls-client-ca", ca.caFile().toString()).applyTo(PLAIN);

    assertThat(config.serving().tls()).isEqualTo(ServingTlsConfig.of(server.certFile(), server.keyFile())
        .withClientCa(ca.caFile(), ClientAuthMode.REQUIRE));
  }

  @Test
  void flags_overrideTheFile_keepingItsOtherSettings() {
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued fromFile = ca.server();
    TestCertificates.Issued fromFlags = ca.issue("flagged", List.of("127.0.0.1"), java.time.Instant.now(),
        java.time.Instant.now().plusSeconds(3600), false);
    FleetConfig file = PLAIN.withServing(PLAIN.serving().withTls(ServingTlsConfig.of(fromFile.certFile(),
        fromFile.keyFile()).withClientCa(ca.caFile(), ClientAuthMode.OPTIONAL).withReloadCheckS(3)));

    ServingTlsConfig tls = flags("--tls-cert", fromFlags.certFile().toString(), "--tls-key",
        fromFlags.keyFile().toString()).applyTo(file).serving().tls();

    assertThat(tls.certChain()).isEqualTo(fromFlags.certFile());
    assertThat(tls.privateKey()).isEqualTo(fromFlags.keyFile());
    assertThat(tls.clientAuth()).isEqualTo(ClientAuthMode.OPTIONAL);
    assertThat(tls.reloadCheckS()).isEqualTo(3);
  }

  @Test
  void problems_areNamedByFlag() {
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued server = ca.server();
    TestCertificates.Issued other = ca.client("other");

    assertThatThrownBy(() -> flags("--tls-cert", server.certFile().toString()).applyTo(PLAIN))
        .hasMessage("--tls-cert and --tls-key go together");
    assertThatThrownBy(() -> flags("--tls-cert", server.certFile().toString(), "--tls-key",
        other.keyFile().toString()).applyTo(PLAIN))
        .hasMessageStartingWith("--tls-cert: " + other.keyFile() + " is not the key of the first certificate");
    assertThatThrownBy(() -> flags("--tls-client-ca", ca.caFile().toString()).applyTo(PLAIN))
        .hasMessage("--tls-client-ca needs TLS: give --tls-cert and --tls-key, or serving.tls in the fleet file");
  }
}
