package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

/**
 * Interoperability with a non-Java client: src/test/node/interop.js, a Node.js program using
 * {@code @grpc/grpc-js} and {@code @grpc/proto-loader} from the npm registry and only the repo's
 * .proto files, run against a router and simulated engines this test starts.
 *
 * <p>Its packages come from {@code npm ci --prefix integration-tests/src/test/node}, which
 * {@code .ci/run} runs before the build. Without them this test fails and says so: an
 * interoperability check that quietly does not run proves nothing.
 */
class GrpcNodeInteropTest {

  private static final Path NODE_DIR = moduleDir().resolve("src/test/node");

  @Test
  void nodeClient_streamsCompletions_seesDeadlinesAndCancellation_andTheDocumentedStatuses() throws Exception {
    requireNodeClient();
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().interTokenMillis(5).build(),
        // No silence bound: the deadline check must be ended by the client's deadline alone.
        c -> c.withEngine(c.engine().withDecodeReadTimeoutS(0)), null)) {
      Result run = runNode("interop.js", "--port", Integer.toString(fleet.router.grpcPort()));

      assertThat(run.exitCode).as("node interop.js exit code; its output:%n%s", run.output).isZero();
      JsonNode report = RouterClient.json(run.jsonLine());
      assertThat(report.path("failures")).isEmpty();
      JsonNode seen = report.path("seen");
      List<String> tokens = new ArrayList<>();
      seen.path("stream_tokens").forEach(t -> tokens.add(t.asText()));
      assertThat(tokens).isEqualTo(SimEngine.expectedTokens(0, "node interop", 5));
      assertThat(seen.path("complete_text").asText()).isEqualTo(SimEngine.expectedText(0, "node interop", 5));
      assertThat(seen.path("deadline_status").asInt()).isEqualTo(4); // DEADLINE_EXCEEDED
      assertThat(seen.path("cancel_status").asInt()).isEqualTo(1); // CANCELLED
      assertThat(seen.path("failure").path("code").asInt()).isEqualTo(14); // UNAVAILABLE
      assertThat(seen.path("invalid").path("details").asText())
          .isEqualTo("'prompt' is required: send a string, an array of strings or token ids");

      // The deadline and the cancellation each closed their decode stream, and nothing is held.
      SimEngine decode = fleet.engine("d0");
      long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while ((decode.stats().activeStreams() > 0 || decode.stats().cancelledStreams() < 2)
          && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      assertThat(decode.stats().cancelledStreams()).isGreaterThanOrEqualTo(2);
      assertThat(decode.stats().activeStreams()).isZero();
      fleet.assertReservationsReturnToZero();
    }
  }

  private static void requireNodeClient() throws Exception {
    Result version;
    try {
      version = runNode("--version");
    } catch (IOException e) {
      throw new AssertionError("`node` is not on the PATH; the gRPC interoperability test needs Node.js 18+", e);
    }
    assertThat(version.exitCode).as("node --version: %s", version.output).isZero();
    if (!Files.isDirectory(NODE_DIR.resolve("node_modules/@grpc/grpc-js"))
        || !Files.isDirectory(NODE_DIR.resolve("node_modules/@grpc/proto-loader"))) {
      throw new AssertionError("The Node.js gRPC client is not installed in " + NODE_DIR + ": run "
          + "`npm ci --prefix integration-tests/src/test/node` from the repository root (.ci/run does).");
    }
  }

  private static Result runNode(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add("node");
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).directory(NODE_DIR.toFile()).redirectErrorStream(true).start();
    process.getOutputStream().close();
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    Thread reader = new Thread(() -> copy(process.getInputStream(), output), "node-output");
    reader.start();
    if (!process.waitFor(45, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      reader.join(5_000);
      throw new AssertionError("node " + String.join(" ", args) + " did not finish in 45 s; output:\n"
          + output.toString(StandardCharsets.UTF_8));
    }
    reader.join(5_000);
    return new Result(process.exitValue(), output.toString(StandardCharsets.UTF_8));
  }

  private static void copy(InputStream in, ByteArrayOutputStream out) {
    try (in) {
      in.transferTo(out);
    } catch (IOException e) {
      // The process ended; what was read is kept.
    }
  }

  /** The integration-tests module: Surefire's working directory, or its basedir property. */
  private static Path moduleDir() {
    String basedir = System.getProperty("basedir");
    return (basedir != null ? Path.of(basedir) : Path.of("")).toAbsolutePath();
  }

  private record Result(int exitCode, String output) {

    /** The report interop.js prints: its one JSON line. */
    String jsonLine() {
      return output.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b)
          .orElseThrow(() -> new AssertionError("interop.js printed no report:\n" + output));
    }
  }
}
