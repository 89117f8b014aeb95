package narwhal.grpc;

import static narwhal.grpc.StreamCompletionTest.completion;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import narwhal.api.CanonicalCode;
import narwhal.api.RouterError;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.StreamEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every row of the shared table, as a gRPC client receives it, on both completion methods. */
class StatusMappingTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final InProcessRouter router = new InProcessRouter(cleanup);

  @ParameterizedTest(name = "HTTP {0} -> {1}")
  @CsvSource({
    "400, INVALID_ARGUMENT",
    "401, UNAUTHENTICATED",
    "403, PERMISSION_DENIED",
    "404, NOT_FOUND",
    "405, UNIMPLEMENTED",
    "408, DEADLINE_EXCEEDED",
    "409, ABORTED",
    "413, INVALID_ARGUMENT",
    "418, FAILED_PRECONDITION",
    "422, INVALID_ARGUMENT",
    "429, RESOURCE_EXHAUSTED",
    "499, CANCELLED",
    "500, INTERNAL",
    "501, UNIMPLEMENTED",
    "502, UNAVAILABLE",
    "503, UNAVAILABLE",
    "504, DEADLINE_EXCEEDED",
    "507, INTERNAL",
  })
  void routerError_reachesTheClientAsItsCanonicalStatus(int httpStatus, Status.Code expected) {
    RouterError error = new RouterError(httpStatus, "some_type", "some_code", "what happened: " + httpStatus,
        "max_tokens", 7);
    router.service.script(call -> call.after(1, () -> call.sink.onError(error)));

    InProcessRouter.Recorder<StreamEvent> streamed = new InProcessRouter.Recorder<>();
    router.stub(streamed).streamCompletion(completion("x"), streamed);
    InProcessRouter.Recorder<Completion> unary = new InProcessRouter.Recorder<>();
    router.stub(unary).complete(completion("x"), unary);
    router.clock.advanceMillis(2);

    for (InProcessRouter.Recorder<?> r : java.util.List.of(streamed, unary)) {
      assertThat(r.status.getCode()).isEqualTo(expected);
      assertThat(r.status.getDescription()).isEqualTo("what happened: " + httpStatus);
      assertThat(r.trailer(GrpcErrors.HTTP_STATUS)).isEqualTo(Integer.toString(httpStatus));
      assertThat(r.trailer(GrpcErrors.ERROR_TYPE)).isEqualTo("some_type");
      assertThat(r.trailer(GrpcErrors.ERROR_CODE)).isEqualTo("some_code");
      assertThat(r.trailer(GrpcErrors.ERROR_PARAM)).isEqualTo("max_tokens");
      assertThat(r.trailer(GrpcErrors.RETRY_AFTER)).isEqualTo("7");
      assertThat(r.messages).isEmpty();
    }
  }

  @Test
  void everyCanonicalCode_isAGrpcStatusCode() {
    for (CanonicalCode code : CanonicalCode.values()) {
      assertThat(Status.Code.valueOf(code.name()).name()).isEqualTo(code.name());
    }
    assertThat(CanonicalCode.values()).hasSize(Status.Code.values().length);
  }

  @Test
  void noRetryAfterOrCode_meansNoSuchTrailers() {
    RouterError error = RouterError.of(503, "backend_unavailable", null, "no decode engine is available");
    router.service.script(call -> call.after(1, () -> call.sink.onError(error)));

    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).streamCompletion(completion("x"), r);
    router.clock.advanceMillis(2);

    assertThat(r.trailer(GrpcErrors.RETRY_AFTER)).isNull();
    assertThat(r.trailer(GrpcErrors.ERROR_CODE)).isNull();
    assertThat(r.trailer(GrpcErrors.ERROR_PARAM)).isNull();
    assertThat(r.trailer(GrpcErrors.ERROR_TYPE)).isEqualTo("backend_unavailable");
  }
}
