package narwhal.server;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Where a router listens and what it records: the flags {@code serve} and {@code demo} share. */
final class ListenFlags {

  /** The default of {@code --grpc-port}: gRPC's customary port. */
  static final int DEFAULT_GRPC_PORT = 50051;

  @Option(names = "--host", paramLabel = "HOST", description = "address to listen on (default ${DEFAULT-VALUE})")
  String host = "127.0.0.1";

  @Option(names = "--port", paramLabel = "N", description = "HTTP port (default ${DEFAULT-VALUE}; 0 picks a free one)")
  int port = 8000;

  @Option(names = "--grpc-port", paramLabel = "N",
      description = "port of narwhal.v1.Router over gRPC (default ${DEFAULT-VALUE}; 0 disables gRPC)")
  int grpcPort = DEFAULT_GRPC_PORT;

  @Option(names = "--journal", paramLabel = "PATH", description = "append one JSON line per request to PATH")
  @Nullable Path journal;

  /** The port to serve gRPC on, or null when {@code --grpc-port} is 0, which disables gRPC. */
  @Nullable Integer grpcPort() {
    if (grpcPort < 0 || grpcPort > 65535) {
      throw new IllegalArgumentException("--grpc-port must be a port (0 disables gRPC), got " + grpcPort);
    }
    return grpcPort == 0 ? null : grpcPort;
  }
}
