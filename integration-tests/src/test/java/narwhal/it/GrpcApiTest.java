package narwhal.it;

import static narwhal.it.GrpcRouterClient.chat;
import static narwhal.it.GrpcRouterClient.completion;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.util.List;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.ListModelsRequest;
import narwhal.proto.v1.Model;
import narwhal.proto.v1.Route;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.StreamOptions;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The gRPC API over a real port, in front of simulated engines: the same answers HTTP gives. */
class GrpcApiTest {

  private static RoutedFleet fleet;
  private static GrpcRouterClient grpc;

  @BeforeAll
  static void start() {
    fleet = RoutedFleet.start();
    grpc = new GrpcRouterClient(fleet.router.grpcPort());
  }

  @AfterAll
  static void stop() throws InterruptedException {
    grpc.close();
    fleet.close();
  }

  @AfterEach
  void released() {
    fleet.assertReservationsReturnToZero();
  }

  @Test
  void streamCompletion_streamsTheEnginesTokens_thenDone() {
    GrpcRouterClient.Outcome<StreamEvent> r = grpc.stream(completion("grpc stream", 6));

    assertThat(r.status()).isEqualTo(Status.OK);
    assertThat(r.text()).isEqualTo(SimEngine.expectedText(0, "grpc stream", 6));
    assertThat(r.messages().get(r.messages().size() - 1).hasDone()).isTrue();
    assertThat(r.errorEvents()).isEmpty();
    assertThat(r.header(GrpcRouterClient.REQUEST_ID)).isNotBlank();
  }

  @Test
  void streamCompletion_chat_startsWithTheRoleChunk_andCarriesUsageWhenAsked() {
    GrpcRouterClient.Outcome<StreamEvent> r = grpc.stream(chat("grpc chat", 5).toBuilder()
        .setStreamOptions(StreamOptions.newBuilder().setIncludeUsage(true)).build());

    assertThat(r.status()).isEqualTo(Status.OK);
    assertThat(r.messages().get(0).getMetadata().getRole()).isEqualTo("assistant");
    assertThat(r.text()).isEqualTo(SimEngine.expectedText(0, "grpc chat", 5));
    assertThat(r.messages().stream().filter(e -> e.hasMetadata() && e.getMetadata().hasUsage()))
        .singleElement().satisfies(e -> assertThat(e.getMetadata().getUsage().getCompletionTokens()).isEqualTo(5));
  }

  @Test
  void complete_returnsTheWholeAnswer() {
    GrpcRouterClient.Outcome<Completion> r = grpc.complete(completion("grpc unary", 7));

    assertThat(r.status()).isEqualTo(Status.OK);
    Completion c = r.messages().get(0);
    assertThat(c.getText()).isEqualTo(SimEngine.expectedText(0, "grpc unary", 7));
    assertThat(c.getId()).startsWith("cmpl-").endsWith(r.header(GrpcRouterClient.REQUEST_ID));
    assertThat(c.getModel()).isEqualTo("narwhal-sim");
    assertThat(c.getFinishReason()).isEqualTo("length");
    assertThat(c.getUsage().getCompletionTokens()).isEqualTo(7);
    assertThat(c.getUsage().getPromptTokens()).isPositive();
  }

  @Test
  void complete_chat_isTheAssistantsMessage() {
    GrpcRouterClient.Outcome<Completion> r = grpc.complete(chat("grpc unary chat", 4));

    Completion c = r.messages().get(0);
    assertThat(c.getRoute()).isEqualTo(Route.ROUTE_CHAT_COMPLETIONS);
    assertThat(c.getId()).startsWith("chatcmpl-");
    assertThat(c.getRole()).isEqualTo("assistant");
    assertThat(c.getText()).isEqualTo(SimEngine.expectedText(0, "grpc unary chat", 4));
  }

  @Test
  void sameRequestOverHttpAndGrpc_getsTheSameText() {
    RouterClient.SseResponse http = fleet.client.stream("/v1/completions",
        "{\"model\":\"narwhal-sim\",\"prompt\":\"both ways\",\"max_tokens\":5,\"stream\":true}");

    assertThat(grpc.stream(completion("both ways", 5)).text()).isEqualTo(http.text());
  }

  @Test
  void listModels_andHealth() {
    List<Model> models = RouterGrpc.newBlockingStub(grpc.channel)
        .listModels(ListModelsRequest.getDefaultInstance()).getModelsList();
    assertThat(models).extracting(Model::getId).containsExactly("narwhal-sim");

    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(grpc.channel);
    assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus()).isEqualTo(ServingStatus.SERVING);
    assertThat(health.check(HealthCheckRequest.newBuilder().setService("narwhal.v1.Router").build()).getStatus())
        .isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void invalidRequest_isInvalidArgument_beforeAnyEngineIsAsked() {
    fleet.clearReceived();
    GrpcRouterClient.Outcome<StreamEvent> r = grpc.stream(completion("x", 4).toBuilder().setMaxTokens(-1).build());

    assertThat(r.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(r.status().getDescription()).contains("max_tokens");
    assertThat(fleet.fleet.engines()).allSatisfy(e -> assertThat(e.received()).isEmpty());
  }
}
