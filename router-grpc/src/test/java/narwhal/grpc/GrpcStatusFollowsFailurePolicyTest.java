package narwhal.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.api.FailurePolicy;
import narwhal.api.RouterError;
import org.junit.jupiter.api.Test;

/** The gRPC front-end's status for every error status is the failure policy's code for it. */
class GrpcStatusFollowsFailurePolicyTest {

  @Test
  void everyErrorStatus_getsThePolicysCode_andThePolicysHttpStatusInTrailers() {
    for (int status = 400; status <= 599; status++) {
      RouterError error = RouterError.of(status, "t", null, "m");

      assertThat(GrpcErrors.status(error).getCode().name()).as("status " + status)
          .isEqualTo(FailurePolicy.grpcCode(error).name());
      assertThat(GrpcErrors.trailers(error, null).get(GrpcErrors.HTTP_STATUS))
          .isEqualTo(Integer.toString(FailurePolicy.httpStatus(error)));
      assertThat(GrpcErrors.event(error).getError().getStatus()).isEqualTo(FailurePolicy.httpStatus(error));
    }
  }
}
