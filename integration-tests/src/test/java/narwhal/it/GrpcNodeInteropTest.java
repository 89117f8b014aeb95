package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  @Test
  void nodeClient_streamsCompletions_seesDeadlinesAndCancellation_andTheDocumentedStatuses() throws Exception {
    NodeScript node = NodeScript.project("node", "@grpc/grpc-js", "@grpc/proto-loader");
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().interTokenMillis(5).build(),
        // No silence bound: the deadline check must be ended by the client's deadline alone.
        c -> c.withEngine(c.engine().withDecodeReadTimeoutS(0)), null)) {
      NodeScript.Result run = node.run(Map.of(), 45, "interop.js", "--port", Integer.toString(fleet.router.grpcPort()));

      assertThat(run.exitCode()).as("node interop.js exit code; its output:%n%s", run.output()).isZero();
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
      narwhal.testing.Poll.until("both decode streams cancelled", Duration.ofSeconds(5),
          () -> decode.stats().activeStreams() == 0 && decode.stats().cancelledStreams() >= 2);
      assertThat(decode.stats().cancelledStreams()).isGreaterThanOrEqualTo(2);
      assertThat(decode.stats().activeStreams()).isZero();
      fleet.assertReservationsReturnToZero();
    }
  }
}
