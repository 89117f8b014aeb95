package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The flags {@code serve} and {@code demo} share: {@code --grpc-port} is 50051 unless given, 0
 * turns gRPC off, anything else must be a port; the rest reach the command as given.
 */
class GrpcPortFlagTest {

  private static ListenFlags parse(String... args) {
    ListenFlags flags = new ListenFlags();
    new CommandLine(flags).parseArgs(args);
    return flags;
  }

  private static Integer grpcPort(String... args) {
    return parse(args).grpcPort();
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
        .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--grpc-port");
  }

  @Test
  void defaults_andGivenValues() {
    ListenFlags defaults = parse();
    assertThat(defaults.host).isEqualTo("127.0.0.1");
    assertThat(defaults.port).isEqualTo(8000);
    assertThat(defaults.journal).isNull();
    ListenFlags given = parse("--host", "0.0.0.0", "--port=9000", "--journal", "runs/j.jsonl");
    assertThat(given.host).isEqualTo("0.0.0.0");
    assertThat(given.port).isEqualTo(9000);
    assertThat(given.journal).isEqualTo(Path.of("runs/j.jsonl"));
  }
}
