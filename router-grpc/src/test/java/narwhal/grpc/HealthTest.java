package narwhal.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** grpc.health.v1.Health follows the router's readiness, for the server and for the Router service. */
class HealthTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final InProcessRouter router = new InProcessRouter(cleanup);

  private ServingStatus check(String service) {
    return HealthGrpc.newBlockingStub(router.channel)
        .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
  }

  @Test
  void notReady_isNotServing_untilReadinessReturns_withinOnePoll() {
    router.service.ready(false);
    router.readiness.start();

    assertThat(check("")).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(check("narwhal.v1.Router")).isEqualTo(ServingStatus.NOT_SERVING);

    router.service.ready(true);
    router.clock.advanceMillis(999);
    assertThat(check("")).isEqualTo(ServingStatus.NOT_SERVING);
    router.clock.advanceMillis(1);
    assertThat(check("")).isEqualTo(ServingStatus.SERVING);
    assertThat(check("narwhal.v1.Router")).isEqualTo(ServingStatus.SERVING);

    router.service.ready(false);
    router.clock.advanceMillis(1_000);
    assertThat(check("narwhal.v1.Router")).isEqualTo(ServingStatus.NOT_SERVING);
  }

  @Test
  void ready_isServing_fromTheStart() {
    router.readiness.start();

    assertThat(check("")).isEqualTo(ServingStatus.SERVING);
    assertThat(check("narwhal.v1.Router")).isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void unknownService_isNotFound() {
    router.readiness.start();

    assertThatThrownBy(() -> check("no.such.Service"))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  @Test
  void closing_isNotServing_andStopsPolling() {
    router.readiness.start();
    router.readiness.close();
    router.clock.runPending();

    assertThat(check("")).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(router.clock.scheduler.pendingDelaysMillis()).doesNotContain(1_000L);
  }
}
