package narwhal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import narwhal.config.ClientAuthMode;
import narwhal.config.FleetConfig;
import narwhal.config.PemFiles;
import narwhal.config.ServingTlsConfig;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * {@code serve}'s TLS flags, which override the fleet file's {@code serving.tls}: the certificate
 * and key together, the client CA on its own. The files are checked as the fleet file's are.
 */
final class TlsFlags {

  @Option(names = "--tls-cert", paramLabel = "FILE",
      description = "serve HTTPS and gRPC over TLS with this PEM certificate chain (with --tls-key; overrides "
          + "serving.tls.cert_chain)")
  @Nullable Path cert;

  @Option(names = "--tls-key", paramLabel = "FILE",
      description = "the certificate's unencrypted PKCS#8 PEM key (with --tls-cert; overrides serving.tls.private_key)")
  @Nullable Path key;

  @Option(names = "--tls-client-ca", paramLabel = "FILE",
      description = "require client certificates signed by a CA of this PEM bundle (mTLS; overrides "
          + "serving.tls.client_ca)")
  @Nullable Path clientCa;

  /**
   * {@code config} with these flags applied.
   *
   * @throws IllegalArgumentException naming every problem with the flags and their files
   */
  FleetConfig applyTo(FleetConfig config) {
    if (cert == null && key == null && clientCa == null) {
      return config;
    }
    List<String> problems = new ArrayList<>();
    if ((cert == null) != (key == null)) {
      problems.add("--tls-cert and --tls-key go together");
    }
    ServingTlsConfig tls = config.serving().tls();
    if (cert != null && key != null) {
      check(problems, "--tls-cert", PemFiles.chainAndKeyProblem(cert, key));
      tls = tls == null ? ServingTlsConfig.of(cert, key) : tls.toBuilder().certChain(cert).privateKey(key).build();
    }
    if (clientCa != null) {
      try {
        PemFiles.certificates(clientCa);
      } catch (PemFiles.PemException e) {
        problems.add("--tls-client-ca: " + e.getMessage());
      }
      if (tls == null) {
        problems.add("--tls-client-ca needs TLS: give --tls-cert and --tls-key, or serving.tls in the fleet file");
      } else {
        ClientAuthMode mode = tls.clientAuth() == ClientAuthMode.OPTIONAL ? ClientAuthMode.OPTIONAL
            : ClientAuthMode.REQUIRE;
        tls = tls.withClientCa(clientCa, mode);
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return config.withServing(config.serving().withTls(tls));
  }

  private static void check(List<String> problems, String flag, @Nullable String problem) {
    if (problem != null) {
      problems.add(flag + ": " + problem);
    }
  }
}
