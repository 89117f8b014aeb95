package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import narwhal.config.ServingTlsConfig;
import narwhal.sim.SimEngine;
import narwhal.testing.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Non-Java clients over TLS to a router serving serving.tls on both front-ends: the official
 * OpenAI SDK (src/test/openai-sdk/tls.js, trusting the test CA through NODE_EXTRA_CA_CERTS) and
 * grpc-js (src/test/node/interop.js --ca, its whole interoperability run over a TLS channel).
 */
class NodeClientsOverTlsTest {

  @TempDir Path dir;

  private RoutedFleet tlsFleet(TestCertificates ca) {
    TestCertificates.Issued server = ca.server();
    return RoutedFleet.start(1, 1, RoutedFleet.fastEngines().interTokenMillis(5).build(),
        c -> c.withServing(c.serving().withTls(ServingTlsConfig.of(server.certFile(), server.keyFile())))
            .withEngine(c.engine().withDecodeReadTimeoutS(0)), null);
  }

  @Test
  void openAiSdk_overHttps_withTheCaFromNodeExtraCaCerts_andRefusedWithoutIt() throws Exception {
    NodeScript sdk = NodeScript.project("openai-sdk", "openai");
    TestCertificates ca = TestCertificates.create(dir);
    try (RoutedFleet fleet = tlsFleet(ca)) {
      ObjectNode config = JsonNodeFactory.instance.objectNode()
          .put("base_url", "https://127.0.0.1:" + fleet.router.port())
          .put("model", RoutedFleet.MODEL)
          .put("prompt", "sdk over tls");

      NodeScript.Result trusted = sdk.run(Map.of("NARWHAL_SDK_CONFIG", config.toString(),
          "NODE_EXTRA_CA_CERTS", ca.caFile().toString()), 40, "tls.js");
      assertThat(trusted.exitCode()).as("node tls.js: %s", trusted.output()).isZero();
      JsonNode seen = RouterClient.json(trusted.jsonLine());
      String expected = SimEngine.expectedText(0, "sdk over tls", 4);
      assertThat(seen.path("error").isMissingNode()).as(seen.toString()).isTrue();
      assertThat(seen.path("completion_text").asText()).isEqualTo(expected);
      assertThat(seen.path("stream_text").asText()).isEqualTo(expected);

      NodeScript.Result untrusted = sdk.run(Map.of("NARWHAL_SDK_CONFIG", config.toString()), 40, "tls.js");
      JsonNode refused = RouterClient.json(untrusted.jsonLine());
      assertThat(refused.path("error").asText()).isEqualTo("APIConnectionError");
      assertThat(refused.path("cause").asText()).as(refused.toString()).isNotEmpty();
    }
  }

  @Test
  void grpcJs_interopRun_overTls() throws Exception {
    NodeScript node = NodeScript.project("node", "@grpc/grpc-js", "@grpc/proto-loader");
    TestCertificates ca = TestCertificates.create(dir);
    try (RoutedFleet fleet = tlsFleet(ca)) {
      NodeScript.Result run = node.run(Map.of(), 45, "interop.js", "--port",
          Integer.toString(fleet.router.grpcPort()), "--ca", ca.caFile().toString());

      assertThat(run.exitCode()).as("node interop.js --ca exit code; its output:%n%s", run.output()).isZero();
      JsonNode report = RouterClient.json(run.jsonLine());
      assertThat(report.path("failures")).isEmpty();
      List<String> tokens = new ArrayList<>();
      report.path("seen").path("stream_tokens").forEach(t -> tokens.add(t.asText()));
      assertThat(tokens).isEqualTo(SimEngine.expectedTokens(0, "node interop", 5));
      assertThat(report.path("seen").path("deadline_status").asInt()).isEqualTo(4);
      fleet.assertReservationsReturnToZero();
    }
  }
}
