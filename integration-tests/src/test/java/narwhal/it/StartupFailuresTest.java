package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code narwhal serve} as an operator starts it, with something wrong: it must say what, exit
 * non-zero at once, and leave no live process without a listener. The fleet's engines do not
 * exist (nothing listens on their ports), so a check that ran preflight first would be seen.
 */
class StartupFailuresTest {

  private static final long EXIT_WITHIN_S = 30;

  @Test
  void httpPortTaken_exitsWithTheAddressAndNoStackTrace(@TempDir Path dir) throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ChildProcess serve = ChildProcess.narwhal("serve", "serve", "--fleet", fleet(dir).toString(), "--host",
            "127.0.0.1", "--port", Integer.toString(taken.getLocalPort()), "--grpc-port", "0", "--preflight", "off")) {
      int status = exitStatus(serve);
      assertThat(status).as(serve.output()).isEqualTo(1);
      assertThat(serve.output()).contains("cannot listen for HTTP on 127.0.0.1:" + taken.getLocalPort())
          .doesNotContain("\tat ").doesNotContain("Exception in thread");
    }
  }

  @Test
  void grpcPortTaken_exitsWithTheAddressAndNoStackTrace(@TempDir Path dir) throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ChildProcess serve = ChildProcess.narwhal("serve", "serve", "--fleet", fleet(dir).toString(), "--host",
            "127.0.0.1", "--port", "0", "--grpc-port", Integer.toString(taken.getLocalPort()), "--preflight", "off")) {
      int status = exitStatus(serve);
      assertThat(status).as(serve.output()).isEqualTo(1);
      assertThat(serve.output()).contains("cannot listen for gRPC on 127.0.0.1:" + taken.getLocalPort())
          .doesNotContain("\tat ").doesNotContain("Exception in thread");
    }
  }

  @Test
  void unwritableJournalOrBadPort_failBeforePreflightProbesAnyEngine(@TempDir Path dir) throws Exception {
    Path fleet = fleet(dir);
    Path notADirectory = Files.writeString(dir.resolve("a-file"), "");
    try (ChildProcess serve = ChildProcess.narwhal("serve", "serve", "--fleet", fleet.toString(), "--port", "0",
        "--grpc-port", "0", "--journal", notADirectory.resolve("dir/journal.jsonl").toString())) {
      assertThat(exitStatus(serve)).as(serve.output()).isEqualTo(2);
      assertThat(serve.output()).contains("--journal").contains("cannot create its directory")
          .contains(notADirectory + " is a file, not a directory")
          .as("preflight never ran: it would have reported the unreachable engines").doesNotContain("p0");
    }
    try (ChildProcess serve = ChildProcess.narwhal("serve", "serve", "--fleet", fleet.toString(), "--port", "70000",
        "--grpc-port", "0")) {
      assertThat(exitStatus(serve)).as(serve.output()).isEqualTo(2);
      assertThat(serve.output()).contains("--port must be a port from 0 to 65535").doesNotContain("p0");
    }
  }

  @Test
  void pinnedContractWithoutAttestation_isRefusedEvenWithPreflightOff(@TempDir Path dir) throws Exception {
    Path fleet = fleet(dir);
    Files.writeString(fleet, Files.readString(fleet).replace("\"slo\":",
        "\"engine_contract\": {\"vllm_version\": \"0.11.0\", \"connector\": \"NixlConnector\"},\n  \"slo\":"));
    try (ChildProcess serve = ChildProcess.narwhal("serve", "serve", "--fleet", fleet.toString(), "--port", "0",
        "--grpc-port", "0", "--preflight", "off")) {
      assertThat(exitStatus(serve)).as(serve.output()).isEqualTo(2);
      assertThat(serve.output()).contains("engine_contract is pinned but this engine has no attestation_url");
    }
  }

  /** The exit status; fails if the process still runs (hangs) after {@link #EXIT_WITHIN_S}. */
  private static int exitStatus(ChildProcess child) throws InterruptedException {
    return child.awaitExit(java.time.Duration.ofSeconds(EXIT_WITHIN_S));
  }

  /** One prefill and one decode engine on ports nothing listens on. */
  private static Path fleet(Path dir) throws IOException {
    int deadPrefill;
    int deadDecode;
    try (ServerSocket p = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ServerSocket d = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      deadPrefill = p.getLocalPort();
      deadDecode = d.getLocalPort();
    }
    Path file = dir.resolve("fleet.json");
    Files.writeString(file, String.join("\n",
        "{",
        "  \"schema\": \"narwhal.fleet\",",
        "  \"schema_version\": 1,",
        "  \"model\": \"m\",",
        "  \"engines\": [",
        "    {\"iid\": \"p0\", \"url\": \"http://127.0.0.1:" + deadPrefill + "\", \"role\": \"prefill\"},",
        "    {\"iid\": \"d0\", \"url\": \"http://127.0.0.1:" + deadDecode + "\", \"role\": \"decode\"}",
        "  ],",
        "  \"slo\": {\"ttft_s\": 2.0, \"tpot_s\": 0.1}",
        "}"));
    return file;
  }
}
