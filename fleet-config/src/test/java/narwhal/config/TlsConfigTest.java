package narwhal.config;

import static narwhal.config.FleetJson.errorsOf;
import static narwhal.config.FleetJson.minimal;
import static narwhal.config.FleetJson.parse;
import static narwhal.config.FleetJson.section;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** serving.tls and engine.tls: defaults, the files checked at load time, and problems that never quote a key. */
class TlsConfigTest {

  @TempDir Path dir;

  static String fixture(String name) {
    try {
      return Path.of(TlsConfigTest.class.getResource("/tls/" + name).toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode servingTls(ObjectNode root) {
    return section(section(root, "serving"), "tls");
  }

  private static ObjectNode engineTls(ObjectNode root) {
    return section(section(root, "engine"), "tls");
  }

  @Test
  void noTlsSections_servePlainTcp_andVerifyEnginesAgainstTheSystemTrustStore() throws Exception {
    FleetConfig config = parse(minimal());

    assertThat(config.serving().tls()).isNull();
    assertThat(config.engine().tls()).isEqualTo(EngineTlsConfig.defaults());
    assertThat(config.engine().tls().verifyHostname()).isTrue();
  }

  @Test
  void servingTls_readsItsFiles_withDefaults() throws Exception {
    ObjectNode root = minimal();
    servingTls(root).put("cert_chain", fixture("server.crt")).put("private_key", fixture("server.key"));

    ServingTlsConfig tls = parse(root).serving().tls();

    assertThat(tls).isEqualTo(ServingTlsConfig.of(Path.of(fixture("server.crt")), Path.of(fixture("server.key"))));
    assertThat(tls.clientAuth()).isEqualTo(ClientAuthMode.NONE);
    assertThat(tls.reloadCheckS()).isEqualTo(10.0);
  }

  @Test
  void clientCa_requiresClientCertificatesByDefault_orOptionally() throws Exception {
    ObjectNode root = minimal();
    servingTls(root).put("cert_chain", fixture("server.crt")).put("private_key", fixture("server.key"))
        .put("client_ca", fixture("ec.crt")).put("reload_check_s", 0);

    ServingTlsConfig tls = parse(root).serving().tls();
    assertThat(tls.clientCa()).isEqualTo(Path.of(fixture("ec.crt")));
    assertThat(tls.clientAuth()).isEqualTo(ClientAuthMode.REQUIRE);
    assertThat(tls.reloadCheckS()).isZero();

    servingTls(root).put("client_auth", "optional");
    assertThat(parse(root).serving().tls().clientAuth()).isEqualTo(ClientAuthMode.OPTIONAL);
  }

  @Test
  void anEcKey_isReadToo() throws Exception {
    ObjectNode root = minimal();
    servingTls(root).put("cert_chain", fixture("ec.crt")).put("private_key", fixture("ec.key"));

    assertThat(parse(root).serving().tls().privateKey()).isEqualTo(Path.of(fixture("ec.key")));
  }

  @Test
  void missingAndUnreadableFiles_areReportedWithTheirPaths() throws Exception {
    ObjectNode root = minimal();
    Path missing = dir.resolve("missing.pem");
    servingTls(root).put("cert_chain", missing.toString()).put("private_key", dir.toString())
        .put("client_ca", fixture("server.key"));

    assertThat(errorsOf(root)).containsExactlyInAnyOrder(
        "$.serving.tls.cert_chain: " + missing + " does not exist",
        "$.serving.tls.private_key: " + dir + " is a directory, not a PEM file",
        "$.serving.tls.client_ca: " + fixture("server.key")
            + " holds no PEM certificate (-----BEGIN CERTIFICATE-----); it holds a private key");
  }

  @Test
  void requiredKeysAndBadValues_areReported() {
    ObjectNode root = minimal();
    servingTls(root).put("client_auth", "sometimes").put("reload_check_s", -1).put("ciphers", "x");

    assertThat(errorsOf(root)).containsExactlyInAnyOrder(
        "$.serving.tls.cert_chain: required: a non-empty string",
        "$.serving.tls.private_key: required: a non-empty string",
        "$.serving.tls.client_auth: must be one of require, optional, got \"sometimes\"",
        "$.serving.tls.reload_check_s: must be a number >= 0, got -1",
        "$.serving.tls.ciphers: unknown key");
  }

  @Test
  void clientAuthWithoutClientCa_isAProblem() {
    ObjectNode root = minimal();
    servingTls(root).put("cert_chain", fixture("server.crt")).put("private_key", fixture("server.key"))
        .put("client_auth", "require");

    assertThat(errorsOf(root)).containsExactly(
        "$.serving.tls.client_auth: needs client_ca: the CA bundle client certificates are verified against");
  }

  @Test
  void aPkcs1Key_isRefused_withTheOpensslCommandThatConvertsIt() {
    ObjectNode root = minimal();
    servingTls(root).put("cert_chain", fixture("server.crt")).put("private_key", fixture("server-pkcs1.key"));

    List<String> errors = errorsOf(root);
    assertThat(errors).singleElement().asString()
        .startsWith("$.serving.tls.private_key: " + fixture("server-pkcs1.key") + " holds a PKCS#1 RSA key")
        .contains("openssl pkcs8 -topk8 -nocrypt -in KEY.pem -out KEY.pkcs8.pem");
  }

  @Test
  void sec1AndEncryptedKeys_areRefused_withTheirFix() {
    assertThatThrownBy(() -> PemFiles.privateKey(Path.of(fixture("ec-sec1.key"))))
        .hasMessageContaining("SEC1 EC key").hasMessageContaining(PemFiles.TO_PKCS8);
    assertThatThrownBy(() -> PemFiles.privateKey(Path.of(fixture("server-encrypted.key"))))
        .hasMessageContaining("encrypted key").hasMessageContaining(PemFiles.TO_PKCS8);
  }

  @Test
  void aKeyOfAnotherCertificate_isReported() {
    ObjectNode root = minimal();
    servingTls(root).put("cert_chain", fixture("server.crt")).put("private_key", fixture("other.key"));

    assertThat(errorsOf(root)).containsExactly("$.serving.tls.private_key: " + fixture("other.key")
        + " is not the key of the first certificate in " + fixture("server.crt")
        + " (the chain must start with the server's own certificate)");
  }

  @Test
  void aHalfWrittenOrDamagedFile_isReported_withoutQuotingIt() throws Exception {
    String key = Files.readString(Path.of(fixture("server.key")));
    Path half = Files.writeString(dir.resolve("half.key"), key.substring(0, key.length() / 2));
    Path damaged = Files.writeString(dir.resolve("damaged.key"),
        "-----BEGIN PRIVATE KEY-----\nAAAA*not base64*\n-----END PRIVATE KEY-----\n");
    Path garbage = Files.writeString(dir.resolve("garbage.crt"),
        "-----BEGIN CERTIFICATE-----\nAAAAAAAA\n-----END CERTIFICATE-----\n");

    assertThatThrownBy(() -> PemFiles.privateKey(half))
        .hasMessage(half + " is not complete PEM: a -----BEGIN line has no matching -----END line "
            + "(a file still being written?)");
    assertThatThrownBy(() -> PemFiles.privateKey(damaged))
        .hasMessageContaining("not complete PEM").hasMessageNotContaining("not base64");
    assertThatThrownBy(() -> PemFiles.certificates(garbage))
        .hasMessage(garbage + ": certificate 1 is not a valid X.509 certificate");
    String body = key.lines().skip(1).findFirst().orElseThrow();
    ObjectNode root = minimal();
    servingTls(root).put("cert_chain", fixture("server.key")).put("private_key", half.toString());
    assertThat(String.join("\n", errorsOf(root))).doesNotContain(body);
  }

  @Test
  void engineTls_readsItsFiles() throws Exception {
    ObjectNode root = minimal();
    engineTls(root).put("ca_bundle", fixture("server.crt")).put("client_cert", fixture("ec.crt"))
        .put("client_key", fixture("ec.key")).put("verify_hostname", false);

    EngineTlsConfig tls = parse(root).engine().tls();

    assertThat(tls).isEqualTo(new EngineTlsConfig(Path.of(fixture("server.crt")), Path.of(fixture("ec.crt")),
        Path.of(fixture("ec.key")), false));
  }

  @Test
  void engineTls_problems() {
    ObjectNode root = minimal();
    engineTls(root).put("ca_bundle", fixture("other.key")).put("client_cert", fixture("ec.crt"))
        .put("verify_hostname", "no");

    assertThat(errorsOf(root)).containsExactlyInAnyOrder(
        "$.engine.tls.ca_bundle: " + fixture("other.key")
            + " holds no PEM certificate (-----BEGIN CERTIFICATE-----); it holds a private key",
        "$.engine.tls.verify_hostname: must be true or false, got \"no\"",
        "$.engine.tls.client_key: client_cert and client_key go together: set both for a client certificate "
            + "(mTLS to engines), or neither");

    ObjectNode mismatched = minimal();
    engineTls(mismatched).put("client_cert", fixture("ec.crt")).put("client_key", fixture("server.key"));
    assertThat(errorsOf(mismatched)).singleElement().asString()
        .startsWith("$.engine.tls.client_key: " + fixture("server.key") + " is not the key of the first certificate");
  }

  @Test
  void httpsEngineUrls_pass() throws Exception {
    ObjectNode root = minimal();
    FleetJson.engine(root, 0).put("url", "https://engine.example:8443");

    assertThat(parse(root).engines().get(0).url().toString()).isEqualTo("https://engine.example:8443");
  }

  @Test
  void withers_andRecordChecks() {
    ServingTlsConfig tls = ServingTlsConfig.of(Path.of("c.pem"), Path.of("k.pem"));
    assertThat(ServingConfig.defaults().withTls(tls).tls()).isEqualTo(tls);
    assertThat(tls.withClientCa(Path.of("ca.pem"), ClientAuthMode.OPTIONAL).clientAuth())
        .isEqualTo(ClientAuthMode.OPTIONAL);
    assertThat(tls.withReloadCheckS(0).reloadCheckS()).isZero();
    assertThatThrownBy(() -> tls.toBuilder().clientAuth(ClientAuthMode.REQUIRE).build())
        .hasMessage("client_auth require needs a client CA");
    assertThatThrownBy(() -> EngineTlsConfig.defaults().withClientCertificate(Path.of("c"), null))
        .isInstanceOf(IllegalArgumentException.class);
    EngineTlsConfig engine = EngineTlsConfig.defaults().withVerifyHostname(false);
    assertThat(EngineConfig.defaults().withTls(engine).tls()).isEqualTo(engine);
  }
}
