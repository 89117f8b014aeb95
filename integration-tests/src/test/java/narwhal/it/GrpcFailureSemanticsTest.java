package narwhal.it;

import static narwhal.it.GrpcRouterClient.completion;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.util.List;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.StreamError;
import narwhal.proto.v1.StreamEvent;
import narwhal.sim.FaultPlan;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every failure class of the failure rules (FailureSemanticsTest over HTTP) as a gRPC client
 * receives it: the status the shared table maps the HTTP status to, the same message as the
 * description, the envelope's type in trailers; after tokens, one error event then the status.
 */
class GrpcFailureSemanticsTest {

  private static RoutedFleet fleet;
  private static GrpcRouterClient grpc;

  @BeforeAll
  static void start() {
    fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), c -> c
        .withEngine(c.engine().withFirstTokenTimeoutS(0.5).withDecodeReadTimeoutS(0.3))
        .withServing(c.serving().withPrefillTimeoutS(0.5)), null);
    grpc = new GrpcRouterClient(fleet.router.grpcPort());
  }

  @AfterAll
  static void stop() throws InterruptedException {
    grpc.close();
    fleet.close();
  }

  @BeforeEach
  void clear() {
    fleet.clearReceived();
  }

  @AfterEach
  void released() {
    fleet.assertReservationsReturnToZero();
  }

  private static CompletionRequest faulty(String directive) {
    return completion("fault [[sim:" + directive + "]]", 6);
  }

  private static GrpcRouterClient.Outcome<StreamEvent> stream(String directive) {
    return grpc.stream(faulty(directive));
  }

  private static GrpcRouterClient.Outcome<Completion> complete(String directive) {
    return grpc.complete(faulty(directive));
  }

  private static int decodeRequests() {
    return fleet.engine("d0").received().size() + fleet.engine("d1").received().size();
  }

  /** A failure before any output: no message, just the status. */
  private static void assertPlain(GrpcRouterClient.Outcome<?> r, Status.Code code, int httpStatus, String type) {
    assertThat(r.messages()).isEmpty();
    assertThat(r.status().getCode()).isEqualTo(code);
    assertThat(r.trailer(GrpcRouterClient.HTTP_STATUS)).isEqualTo(Integer.toString(httpStatus));
    assertThat(r.trailer(GrpcRouterClient.ERROR_TYPE)).isEqualTo(type);
  }

  /** A failure after output: one terminal error event, no done, then the same error as the status. */
  private static StreamError assertTerminalEvent(GrpcRouterClient.Outcome<StreamEvent> r, Status.Code code) {
    List<StreamEvent> errors = r.errorEvents();
    assertThat(errors).hasSize(1);
    assertThat(r.messages().get(r.messages().size() - 1)).isEqualTo(errors.get(0));
    assertThat(r.messages().stream().filter(StreamEvent::hasDone)).isEmpty();
    StreamError error = errors.get(0).getError();
    assertThat(r.status().getCode()).isEqualTo(code);
    assertThat(r.status().getDescription()).isEqualTo(error.getMessage());
    assertThat(r.trailer(GrpcRouterClient.HTTP_STATUS)).isEqualTo(Integer.toString(error.getStatus()));
    return error;
  }

  @Test
  void doneBeforeAnyToken_isUnavailableWithTheSpecMessage() {
    for (GrpcRouterClient.Outcome<?> r : List.of(stream("done-first,phase=decode"), complete("done-first,phase=decode"))) {
      assertPlain(r, Status.Code.UNAVAILABLE, 502, "decode");
      assertThat(r.status().getDescription())
          .matches("stream ended with \\[DONE\\] before any token arrived from decode engine d\\d");
    }
  }

  @Test
  void prefillEngineError_isUnavailableNamingThePrefillPhase_andNoDecodeIsSent() {
    GrpcRouterClient.Outcome<StreamEvent> r = stream("status=500,phase=prefill");
    assertPlain(r, Status.Code.UNAVAILABLE, 502, "prefill");
    assertThat(r.status().getDescription()).contains("answered HTTP 500");
    assertThat(decodeRequests()).isZero();
  }

  @Test
  void decodeEngineErrorBeforeOutput_isUnavailable() {
    assertPlain(stream("status=500,phase=decode"), Status.Code.UNAVAILABLE, 502, "decode");
  }

  @Test
  void engineRejection_isRelayedWithItsStatus_asInvalidArgument() {
    GrpcRouterClient.Outcome<Completion> r = complete("status=400,message=prompt too long,phase=prefill");
    assertThat(r.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.trailer(GrpcRouterClient.HTTP_STATUS)).isEqualTo("400");
    assertThat(r.status().getDescription()).contains("prompt too long");
  }

  @Test
  void silentFirstToken_isDeadlineExceeded() {
    GrpcRouterClient.Outcome<StreamEvent> r = stream("silence-first=forever,phase=decode");
    assertThat(r.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(r.status().getDescription()).startsWith("no first token within 500 ms");
    assertThat(r.messages()).isEmpty();
  }

  @Test
  void responseHeaderDelay_spendsTheFirstTokenBudget() {
    assertThat(stream("delay-headers=900,phase=decode").status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
  }

  @Test
  void prefillTimeout_isDeadlineExceededNamingPrefill() {
    assertPlain(stream("delay-headers=900,phase=prefill"), Status.Code.DEADLINE_EXCEEDED, 504, "prefill");
    assertThat(decodeRequests()).isZero();
  }

  @Test
  void silenceAfterTokens_streaming_endsWithOneTerminalErrorEvent() {
    GrpcRouterClient.Outcome<StreamEvent> r = stream("silence-after=2,phase=decode");
    StreamError error = assertTerminalEvent(r, Status.Code.DEADLINE_EXCEEDED);
    assertThat(error.getStatus()).isEqualTo(504);
    assertThat(error.getMessage()).startsWith("engine went silent between tokens");
    assertThat(r.text()).isEqualTo(SimEngine.expectedText(0, "fault [[sim:silence-after=2,phase=decode]]", 2));
    assertThat(r.header(GrpcRouterClient.REQUEST_ID)).isEqualTo(r.trailer(GrpcRouterClient.REQUEST_ID));
  }

  @Test
  void silenceAfterTokens_unary_isPlainDeadlineExceeded() {
    GrpcRouterClient.Outcome<Completion> r = complete("silence-after=2,phase=decode");
    assertPlain(r, Status.Code.DEADLINE_EXCEEDED, 504, "decode");
    assertThat(r.status().getDescription()).startsWith("engine went silent between tokens");
  }

  @Test
  void metadataChunksDuringSilence_resetTheSilenceTimer() {
    GrpcRouterClient.Outcome<StreamEvent> r = stream("silence-after=2,ms=700,metadata-every=100,phase=decode");
    assertThat(r.status()).isEqualTo(Status.OK);
    assertThat(r.messages().get(r.messages().size() - 1).hasDone()).isTrue();
  }

  @Test
  void closeBeforeDone_afterOutput_isATerminalErrorEvent_andUnavailable() {
    StreamError error = assertTerminalEvent(stream("eof-after=3,phase=decode"), Status.Code.UNAVAILABLE);
    assertThat(error.getStatus()).isEqualTo(502);
    assertThat(error.getMessage()).contains("before [DONE]");
  }

  @Test
  void errorObjectInsideTheStream_propagatesItsOwnStatus() {
    StreamError error = assertTerminalEvent(stream("error-after=2,code=503,message=engine overloaded,phase=decode"),
        Status.Code.UNAVAILABLE);
    assertThat(error.getStatus()).isEqualTo(503);
    assertThat(error.getMessage()).contains("engine overloaded");

    GrpcRouterClient.Outcome<Completion> plain = complete("error-after=1,code=429,phase=decode");
    assertThat(plain.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(plain.trailer(GrpcRouterClient.HTTP_STATUS)).isEqualTo("429");
  }

  @ParameterizedTest
  @ValueSource(strings = {"kv-missing-engine-id", "kv-bad-block-ids", "kv-wrong-connector", "kv-none"})
  void unusableDescriptor_isUnavailableAsKvHandoff_andNoDecodeRequestIsSent(String fault) {
    GrpcRouterClient.Outcome<StreamEvent> r = stream(fault + ",phase=prefill");
    assertPlain(r, Status.Code.UNAVAILABLE, 502, "prefill");
    assertThat(r.status().getDescription()).contains("unusable KV handoff");
    assertThat(decodeRequests()).isZero();
  }

  @Test
  void decodeEngineClosingTheConnection_isUnavailable() {
    assertPlain(stream("refuse,phase=decode"), Status.Code.UNAVAILABLE, 502, "decode");
  }

  @Test
  void noEngineLeft_isUnavailable_withRetryAfterInTrailers() throws InterruptedException {
    // Nothing of the role in placement: the only prefill engine is down and liveness took it out.
    // Both engines are pinned: otherwise the role controller, which runs every 50 ms here, may
    // rightly let the decode engine take the prefill role too before the request arrives (a race
    // the test used to win only by being quick).
    try (RoutedFleet small = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
            c -> c.withEngines(c.engines().stream().map(e -> e.withPin(true)).toList())
                .withController(c.controller().withMonitorIntervalS(0.05))
                .withRecovery(c.recovery().withLivenessEvery(1).withLivenessMisses(1).withReadmitEvery(100000))
                .withServing(c.serving().withMaxAttempts(3).withRetryBackoff(0.001, 0.01)), null);
        GrpcRouterClient client = new GrpcRouterClient(small.router.grpcPort())) {
      small.engine("p0").close();
      narwhal.testing.Poll.until("liveness ejects p0", () -> !small.router.router().fleet().get("p0").inPlacement());
      GrpcRouterClient.Outcome<StreamEvent> r = client.stream(completion("retry me", 4));
      assertPlain(r, Status.Code.UNAVAILABLE, 503, "backend_unavailable");
      assertThat(r.trailer(GrpcRouterClient.RETRY_AFTER)).isEqualTo("1");
      assertThat(r.trailer(GrpcRouterClient.ERROR_CODE)).isEqualTo("backend_unavailable");
      small.assertReservationsReturnToZero();
    }
  }
}
