package narwhal.grpc;

import static narwhal.grpc.StreamCompletionTest.completion;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import narwhal.api.InvalidRequestException;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.openai.Json;
import narwhal.proto.v1.ChatMessages;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Prompt;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad requests are refused before the core sees them, by the HTTP front-end's rules and words:
 * the same request sent as an HTTP body gets the same message and param.
 */
class ValidationTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private InProcessRouter router = new InProcessRouter(cleanup);

  private InProcessRouter.Recorder<StreamEvent> stream(CompletionRequest request) {
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).streamCompletion(request, r);
    router.clock.runPending();
    return r;
  }

  /** What the HTTP codec says about the same request as a body. */
  private static String httpMessage(CompletionRequest request) {
    byte[] body = Json.compactBytes(OpenAiRequestCodec.toJson(request));
    try {
      OpenAiRequestCodec.parse(body, request.getRoute(), null);
    } catch (InvalidRequestException e) {
      return e.getMessage();
    }
    throw new AssertionError("HTTP accepts the request");
  }

  @Test
  void missingPrompt_isInvalidArgument_withHttpsMessageAndParam() {
    CompletionRequest request = CompletionRequest.newBuilder().setRoute(Route.ROUTE_COMPLETIONS).build();

    InProcessRouter.Recorder<StreamEvent> r = stream(request);

    assertThat(r.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status.getDescription()).isEqualTo(httpMessage(request))
        .isEqualTo("'prompt' is required: send a string, an array of strings or token ids");
    assertThat(r.trailer(GrpcErrors.ERROR_PARAM)).isEqualTo("prompt");
    assertThat(r.trailer(GrpcErrors.ERROR_TYPE)).isEqualTo("invalid_request_error");
    assertThat(r.trailer(GrpcErrors.HTTP_STATUS)).isEqualTo("400");
    assertThat(router.service.calls).isEmpty();
    assertThat(router.service.tickets).singleElement()
        .satisfies(t -> assertThat(t.endings).containsExactly("invalid:" + r.trailer(GrpcErrors.HTTP_STATUS)));
  }

  @Test
  void emptyChat_isInvalidArgumentNamingMessages() {
    CompletionRequest request = CompletionRequest.newBuilder()
        .setRoute(Route.ROUTE_CHAT_COMPLETIONS).setChat(ChatMessages.getDefaultInstance()).build();

    InProcessRouter.Recorder<StreamEvent> r = stream(request);

    assertThat(r.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status.getDescription()).isEqualTo(httpMessage(request));
    assertThat(r.trailer(GrpcErrors.ERROR_PARAM)).isEqualTo("messages");
  }

  @Test
  void badExtraField_isRefusedAsHttpRefusesIt() {
    CompletionRequest request = completion("hi").toBuilder().putExtraFields("n", "3").build();

    InProcessRouter.Recorder<StreamEvent> r = stream(request);

    assertThat(r.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status.getDescription()).isEqualTo(httpMessage(request));
    assertThat(r.trailer(GrpcErrors.ERROR_PARAM)).isEqualTo("n");
  }

  @Test
  void extraFieldThatIsNotJson_isInvalidArgument() {
    InProcessRouter.Recorder<StreamEvent> r = stream(completion("hi").toBuilder().putExtraFields("tools", "[{").build());

    assertThat(r.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status.getDescription()).contains("'tools'").contains("not valid JSON");
  }

  @Test
  void unknownRoute_isInvalidArgumentNamingRoute() {
    // An unspecified route is decided by the input (GrpcRouteAndChunkIdentityTest); a number no
    // Route has (a newer client's) is refused.
    InProcessRouter.Recorder<StreamEvent> r = stream(completion("hi").toBuilder().setRouteValue(7).build());

    assertThat(r.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status.getDescription()).contains("ROUTE_COMPLETIONS or ROUTE_CHAT_COMPLETIONS");
    assertThat(r.trailer(GrpcErrors.ERROR_PARAM)).isEqualTo("route");
  }

  @Test
  void anotherModel_isNotFound_modelNotFound() {
    InProcessRouter.Recorder<StreamEvent> r = stream(completion("hi").toBuilder().setModel("gpt-9").build());

    assertThat(r.status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(r.status.getDescription())
        .isEqualTo("The model `gpt-9` does not exist; this router serves `served-model`.");
    assertThat(r.trailer(GrpcErrors.ERROR_CODE)).isEqualTo("model_not_found");
    assertThat(r.trailer(GrpcErrors.HTTP_STATUS)).isEqualTo("404");
  }

  @Test
  void requestOverTheLimit_isInvalidArgumentNamingTheSetting() {
    router = new InProcessRouter(cleanup, new GrpcFrontEndOptions("in-process", 0, 64, 1 << 20));

    InProcessRouter.Recorder<StreamEvent> r = stream(completion("x".repeat(100)));

    assertThat(r.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status.getDescription())
        .isEqualTo("Request body exceeds the limit of 64 bytes (serving.max_request_bytes).");
    assertThat(r.trailer(GrpcErrors.HTTP_STATUS)).isEqualTo("413");
    assertThat(router.service.calls).isEmpty();
  }

  @Test
  void nonStreamingLimits_applyToComplete_only() {
    CompletionRequest withAudio = completion("hi").toBuilder().putExtraFields("audio", "{\"voice\":\"x\"}").build();

    InProcessRouter.Recorder<Completion> unary = new InProcessRouter.Recorder<>();
    router.stub(unary).complete(withAudio, unary);
    router.clock.runPending();
    stream(withAudio);

    assertThat(unary.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(unary.trailer(GrpcErrors.ERROR_PARAM)).isEqualTo("audio");
    assertThat(router.service.onlyCall().request.getStream()).isTrue();
  }

  @Test
  void clientRequestIdHeader_isKeptAsTheClientsId_unlessTheFieldSetsOne() {
    Metadata headers = new Metadata();
    headers.put(GrpcErrors.REQUEST_ID, "client-7");
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
        .streamCompletion(completion("hi"), r);
    router.stub(r).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
        .streamCompletion(completion("hi").toBuilder().setClientRequestId("field-1").build(), r);
    router.clock.runPending();

    assertThat(router.service.calls).extracting(c -> c.request.getClientRequestId())
        .containsExactly("client-7", "field-1");
  }

  @Test
  void tokenIdPrompt_isAccepted() {
    stream(completion("x").toBuilder()
        .setPrompt(Prompt.newBuilder().setTokenIds(narwhal.proto.v1.TokenIds.newBuilder().addIds(1).addIds(2)))
        .build());

    assertThat(router.service.onlyCall().request.getPrompt().getTokenIds().getIdsList()).containsExactly(1L, 2L);
  }
}
