package narwhal.it;

import static narwhal.testing.Poll.until;
import static narwhal.it.GrpcRouterClient.completion;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import narwhal.proto.v1.StreamEvent;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's gRPC deadline is the request's deadline, and cancelling the call cancels the
 * request: the engine stream is closed and every reservation returned. Real (short) time.
 */
class GrpcDeadlinesAndCancellationTest {

  private static List<JsonNode> requestRows(Path journal) throws Exception {
    return Files.readAllLines(journal).stream().map(RouterClient::json)
        .filter(r -> r.path("kind").asText().equals("request")).toList();
  }

  @Test
  void deadlineDuringAStalledDecode_isDeadlineExceeded_andTheEngineStreamIsClosed(@TempDir Path dir)
      throws Exception {
    Path journal = dir.resolve("journal.jsonl");
    // No silence bound and a long request timeout: only the client's deadline can end the stream.
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
            .withEngine(c.engine().withDecodeReadTimeoutS(0))
            .withServing(c.serving().withRequestTimeoutS(60)), journal);
        GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort())) {
      String prompt = "stall [[sim:silence-after=2,phase=decode]]";
      GrpcRouterClient.Outcome<StreamEvent> r = grpc.stream(completion(prompt, 6), Duration.ofMillis(700),
          (e, call) -> {});

      assertThat(r.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      assertThat(r.text()).isEqualTo(SimEngine.expectedText(0, prompt, 2));
      SimEngine decode = fleet.engine("d0");
      until("the decode engine saw its stream closed", () -> decode.stats().cancelledStreams() == 1);
      assertThat(decode.stats().activeStreams()).isZero();
      fleet.assertReservationsReturnToZero();
    }
    // The router's own deadline (the client's) ended the request: expired, not a disconnect.
    JsonNode row = requestRows(journal).get(0);
    assertThat(row.path("terminal").asText()).isEqualTo("expired");
    assertThat(row.path("error").asText()).contains("the client's deadline").contains("after 2 tokens");
  }

  @Test
  void deadlineBeforeTheFirstToken_isDeadlineExceeded_withTheRoutersMessageWhenItArrivesFirst() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
            .withServing(c.serving().withRequestTimeoutS(0.4)), null);
        GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort())) {
      // serving.request_timeout_s (0.4 s) is earlier than the client's 10 s: it bounds the request.
      GrpcRouterClient.Outcome<StreamEvent> r = grpc.stream(
          completion("wait [[sim:silence-first=forever,phase=decode]]", 4), Duration.ofSeconds(10), (e, call) -> {});

      assertThat(r.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      assertThat(r.status().getDescription())
          .isEqualTo("request deadline of 400 ms (serving.request_timeout_s) passed before the first token");
      assertThat(r.trailer(GrpcRouterClient.ERROR_TYPE)).isEqualTo("request_expired");
      assertThat(r.messages()).isEmpty();
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void cancelMidStream_closesTheDecodeStream_andReleasesEverything(@TempDir Path dir) throws Exception {
    Path journal = dir.resolve("journal.jsonl");
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().interTokenMillis(20).build(),
            c -> c, journal);
        GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort())) {
      int[] tokens = {0};
      GrpcRouterClient.Outcome<StreamEvent> r = grpc.stream(completion("long story", 500), null, (e, call) -> {
        if (e.hasToken() && ++tokens[0] == 3) {
          call.cancel("enough", null);
        }
      });

      assertThat(r.status().getCode()).isEqualTo(Status.Code.CANCELLED);
      SimEngine decode = fleet.engine("d0");
      until("the decode engine saw its stream cancelled", () -> decode.stats().cancelledStreams() == 1);
      assertThat(decode.stats().activeStreams()).isZero();
      fleet.assertReservationsReturnToZero();
    }
    JsonNode row = requestRows(journal).get(0);
    assertThat(row.path("terminal").asText()).isEqualTo("cancelled");
  }

  @Test
  void cancelWhileWaitingForTheFirstToken_releasesEverything() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, null);
        GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort())) {
      GrpcRouterClient.Outcome<StreamEvent> r = grpc.stream(
          completion("quiet [[sim:silence-first=forever,phase=decode]]", 4), Duration.ofMillis(300), (e, c) -> {});

      assertThat(r.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      SimEngine decode = fleet.engine("d0");
      until("the decode engine saw its stream closed", () -> decode.stats().activeStreams() == 0 && decode.stats().cancelledStreams() == 1);
      fleet.assertReservationsReturnToZero();
    }
  }

}
