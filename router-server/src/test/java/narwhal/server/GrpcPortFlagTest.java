package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code --grpc-port}: 50051 unless given, 0 turns gRPC off, anything else must be a port. */
class GrpcPortFlagTest {

  private static Integer grpcPort(String... args) {
    return Flags.parse(args, Set.of("grpc-port"), false).grpcPort();
  }

  @Test
  void absent_isTheCustomaryPort() {
    assertThat(grpcPort()).isEqualTo(50051);
  }

  @Test
  void zero_disablesGrpc() {
    assertThat(grpcPort("--grpc-port", "0")).isNull();
  }

  @Test
  void givenPort_isUsed() {
    assertThat(grpcPort("--grpc-port=6000")).isEqualTo(6000);
  }

  @Test
  void outOfRange_orNotANumber_isRejectedWithTheFlagsName() {
    assertThatThrownBy(() -> grpcPort("--grpc-port", "70000"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--grpc-port");
    assertThatThrownBy(() -> grpcPort("--grpc-port", "grpc"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--grpc-port");
  }
}
