package narwhal.grpc;

import static narwhal.testing.ScriptedCompletionService.token;
import static narwhal.grpc.StreamCompletionTest.completion;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.netty.EventLoopScheduler;
import narwhal.proto.v1.Completion;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The front-end on a real port and real event loops: loops, reflection, health, shutdown. */
class GrpcFrontEndTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final ScriptedCompletionService service = new ScriptedCompletionService();
  private final GrpcFrontEnd frontEnd = GrpcFrontEnd.start(
      new GrpcFrontEndOptions("127.0.0.1", 0, 1 << 20, 1 << 20, Duration.ofMillis(20)), service, boss, workers);
  private final ManagedChannel channel = cleanup.register(
      NettyChannelBuilder.forAddress("127.0.0.1", frontEnd.port()).usePlaintext().build());

  @AfterEach
  void stop() {
    frontEnd.close();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void call_runsOnTheEventLoopItArrivedOn_whichIsOneOfTheSharedWorkers() {
    service.script(call -> call.stream(token("a"), token("b")));

    Iterator<StreamEvent> events = RouterGrpc.newBlockingStub(channel).streamCompletion(completion("hi"));
    List<StreamEvent> all = new java.util.ArrayList<>();
    events.forEachRemaining(all::add);

    assertThat(all).hasSize(3);
    assertThat(all.get(2).hasDone()).isTrue();
    ScriptedCompletionService.Call call = service.onlyCall();
    assertThat(call.loop).isInstanceOf(EventLoopScheduler.class);
    assertThat(((EventLoopScheduler) call.loop).eventLoop().parent()).isSameAs(workers);
  }

  @Test
  void unaryAnswer_overARealPort() {
    service.script(call -> call.stream(token("x"), token("y")));

    Completion c = RouterGrpc.newBlockingStub(channel).complete(completion("hi"));

    assertThat(c.getText()).isEqualTo("xy");
  }

  @Test
  void reflection_listsTheRouterAndHealthServices() throws Exception {
    CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests =
        ServerReflectionGrpc.newStub(channel).serverReflectionInfo(new StreamObserver<>() {
          @Override
          public void onNext(ServerReflectionResponse value) {
            answer.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            answer.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {}
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());

    ServerReflectionResponse response = answer.get(10, TimeUnit.SECONDS);
    requests.onCompleted();

    assertThat(response.getListServicesResponse().getServiceList()).extracting(ServiceResponse::getName)
        .contains("narwhal.v1.Router", "grpc.health.v1.Health");
  }

  @Test
  void health_followsReadiness_andIsNotServingOnceClosed() throws Exception {
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel);
    HealthCheckRequest router = HealthCheckRequest.newBuilder().setService("narwhal.v1.Router").build();
    assertThat(health.check(router).getStatus()).isEqualTo(ServingStatus.SERVING);

    service.ready(false);
    narwhal.testing.Poll.until("health NOT_SERVING", java.time.Duration.ofSeconds(5),
        () -> health.check(router).getStatus() == ServingStatus.NOT_SERVING);
    assertThat(health.check(router).getStatus()).isEqualTo(ServingStatus.NOT_SERVING);
  }

  @Test
  void close_cancelsCallsInFlight() throws Exception {
    service.script(call -> call.after(1, () -> call.sink.onStart(call.start())));
    CompletableFuture<Status> outcome = new CompletableFuture<>();
    RouterGrpc.newStub(channel).streamCompletion(completion("hi"), new StreamObserver<>() {
      @Override
      public void onNext(StreamEvent value) {}

      @Override
      public void onError(Throwable t) {
        outcome.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        outcome.complete(Status.OK);
      }
    });
    narwhal.testing.Poll.until("the call submitted", java.time.Duration.ofSeconds(5), () -> !service.calls.isEmpty());

    frontEnd.close();

    assertThat(outcome.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    narwhal.testing.Poll.until("the request cancelled", java.time.Duration.ofSeconds(5),
        () -> service.onlyCall().handle.cancels.get() > 0);
    assertThat(service.onlyCall().handle.cancels.get()).isEqualTo(1);
  }
}
