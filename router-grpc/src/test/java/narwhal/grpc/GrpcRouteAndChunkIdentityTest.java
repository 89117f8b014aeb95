package narwhal.grpc;

import static narwhal.grpc.StreamCompletionTest.completion;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import narwhal.openai.Json;
import narwhal.proto.v1.ChatMessage;
import narwhal.proto.v1.ChatMessages;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * gRPC's own fit: {@code route} may be left unspecified (the {@code input} oneof decides it), a
 * route that contradicts the input is refused in proto field names, and each relayed chunk carries
 * the router's id and model as HTTP's SSE chunks do.
 */
class GrpcRouteAndChunkIdentityTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final InProcessRouter router = new InProcessRouter(cleanup);

  private InProcessRouter.Recorder<StreamEvent> stream(CompletionRequest request) {
    InProcessRouter.Recorder<StreamEvent> r = new InProcessRouter.Recorder<>();
    router.stub(r).streamCompletion(request, r);
    router.clock.runPending();
    return r;
  }

  private static CompletionRequest chat(String text) {
    return CompletionRequest.newBuilder()
        .setChat(ChatMessages.newBuilder().addMessages(ChatMessage.newBuilder().setRole("user").setText(text)))
        .setMaxTokens(4)
        .build();
  }

  @Test
  void unspecifiedRoute_withPrompt_isACompletion() {
    stream(completion("hi").toBuilder().setRoute(Route.ROUTE_UNSPECIFIED).build());

    assertThat(router.service.onlyCall().request.getRoute()).isEqualTo(Route.ROUTE_COMPLETIONS);
    assertThat(router.service.onlyCall().request.getPrompt().getText()).isEqualTo("hi");
  }

  @Test
  void unspecifiedRoute_withChat_isAChatCompletion() {
    stream(chat("hello"));

    assertThat(router.service.onlyCall().request.getRoute()).isEqualTo(Route.ROUTE_CHAT_COMPLETIONS);
    assertThat(router.service.onlyCall().request.getChat().getMessages(0).getText()).isEqualTo("hello");
  }

  @Test
  void unspecifiedRoute_withoutInput_namesRouteAndTheInputFields() {
    InProcessRouter.Recorder<StreamEvent> r = stream(CompletionRequest.newBuilder().setMaxTokens(4).build());

    assertThat(r.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status.getDescription()).contains("'prompt'").contains("'chat'");
    assertThat(r.trailer(GrpcErrors.ERROR_PARAM)).isEqualTo("route");
    assertThat(router.service.calls).isEmpty();
  }

  @Test
  void chatRoute_withPrompt_namesTheProtoFields_notMessages() {
    InProcessRouter.Recorder<StreamEvent> r =
        stream(completion("hi").toBuilder().setRoute(Route.ROUTE_CHAT_COMPLETIONS).build());

    assertThat(r.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status.getDescription())
        .isEqualTo("'route' ROUTE_CHAT_COMPLETIONS takes its input in 'chat', but the request sets 'prompt': "
            + "send 'chat', or leave 'route' unspecified")
        .doesNotContain("messages");
    assertThat(r.trailer(GrpcErrors.ERROR_PARAM)).isEqualTo("prompt");
    assertThat(router.service.calls).isEmpty();
    assertThat(router.service.tickets).singleElement()
        .satisfies(t -> assertThat(t.endings).containsExactly("invalid:" + r.trailer(GrpcErrors.HTTP_STATUS)));
  }

  @Test
  void completionsRoute_withChat_namesTheProtoFields() {
    InProcessRouter.Recorder<StreamEvent> r = stream(chat("hello").toBuilder().setRoute(Route.ROUTE_COMPLETIONS).build());

    assertThat(r.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status.getDescription()).startsWith("'route' ROUTE_COMPLETIONS takes its input in 'prompt'")
        .contains("sets 'chat'").doesNotContain("messages");
    assertThat(r.trailer(GrpcErrors.ERROR_PARAM)).isEqualTo("chat");
  }

  @Test
  void chunkJson_carriesTheRoutersIdModelAndCreated_notTheEngines() {
    StreamEvent role = StreamEvent.newBuilder().setMetadata(MetadataChunk.newBuilder().setRole("assistant")
        .setChunkJson("{\"id\":\"chatcmpl-engine-7\",\"object\":\"chat.completion.chunk\",\"created\":1,"
            + "\"model\":\"/models/llama\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}"))
        .build();
    StreamEvent token = StreamEvent.newBuilder().setToken(TokenDelta.newBuilder().setText("Hi")
        .setChunkJson("{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
            + "\"delta\":{\"content\":\"Hi\"},\"logprobs\":null}]}"))
        .build();
    router.service.script(call -> call.stream(role, token));

    InProcessRouter.Recorder<StreamEvent> r = stream(chat("hello").toBuilder().setRoute(Route.ROUTE_CHAT_COMPLETIONS).build());
    router.clock.advanceMillis(10);

    assertThat(r.status).isEqualTo(Status.OK);
    JsonNode first = parse(r.messages.get(0).getMetadata().getChunkJson());
    assertThat(first.path("id").asText()).isEqualTo("chatcmpl-rid-1");
    assertThat(first.path("model").asText()).isEqualTo(ScriptedCompletionService.MODEL);
    assertThat(first.path("created").asLong()).isEqualTo(ScriptedCompletionService.CREATED);
    assertThat(first.path("choices").path(0).path("delta").path("role").asText()).isEqualTo("assistant");
    // A chunk without them gets them appended; everything else it carried is kept.
    JsonNode second = parse(r.messages.get(1).getToken().getChunkJson());
    assertThat(second.path("id").asText()).isEqualTo("chatcmpl-rid-1");
    assertThat(second.path("model").asText()).isEqualTo(ScriptedCompletionService.MODEL);
    assertThat(second.path("choices").path(0).has("logprobs")).isTrue();
    assertThat(r.messages.get(1).getToken().getText()).isEqualTo("Hi");
  }

  private static JsonNode parse(String json) {
    try {
      return Json.mapper().readTree(json);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }
}
