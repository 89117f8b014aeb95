package narwhal.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Where a router listens and what it records: the flags {@code serve} and {@code demo} share. */
final class ListenFlags {

  /** The default of {@code --grpc-port}: gRPC's customary port. */
  static final int DEFAULT_GRPC_PORT = 50051;
  private static final String GRPC_PORT_RANGE = "--grpc-port must be a port from 0 to 65535 (0 disables gRPC), got ";

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
    // The range only: validate() (the journal's directory too) has run before this is asked.
    if (grpcPort < 0 || grpcPort > 65535) {
      throw new IllegalArgumentException(GRPC_PORT_RANGE + grpcPort);
    }
    return grpcPort == 0 ? null : grpcPort;
  }

  /**
   * Checks these flags before anything slow runs (preflight probes every engine): ports out of
   * range, a journal that cannot be written where it is asked (its directory is created when
   * missing).
   *
   * @throws IllegalArgumentException naming every problem (the command prints it and exits 2)
   */
  void validate() {
    List<String> problems = problems();
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
  }

  private List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (port < 0 || port > 65535) {
      problems.add("--port must be a port from 0 to 65535 (0 picks a free one), got " + port);
    }
    if (grpcPort < 0 || grpcPort > 65535) {
      problems.add(GRPC_PORT_RANGE + grpcPort);
    }
    if (journal != null) {
      Path absolute = journal.toAbsolutePath();
      Path dir = absolute.getParent();
      if (Files.isDirectory(absolute)) {
        problems.add("--journal " + journal + " is a directory; name a file");
      } else if (dir == null || !directoryFor(dir, problems)) {
        // directoryFor said why
      } else if (!Files.isWritable(dir) && !Files.isWritable(absolute)) {
        problems.add("--journal " + journal + ": cannot write in " + dir);
      } else if (Files.exists(absolute) && !Files.isWritable(absolute)) {
        problems.add("--journal " + journal + " exists and cannot be written");
      }
    }
    return problems;
  }

  /**
   * Whether the journal's directory exists, creating it (and its parents) when it does not, as
   * {@code narwhal profile} does for the profiles file: a first run's {@code --journal
   * runs/journal.jsonl} should not need a {@code mkdir} first. Adds the reason to {@code problems}
   * when it cannot.
   */
  private boolean directoryFor(Path dir, List<String> problems) {
    if (Files.isDirectory(dir)) {
      return true;
    }
    Path existing = dir;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing != null && !Files.isDirectory(existing)) {
      problems.add("--journal " + journal + ": cannot create its directory " + dir + ": " + existing
          + " is a file, not a directory");
      return false;
    }
    try {
      Files.createDirectories(dir);
      return true;
    } catch (java.io.IOException e) {
      problems.add("--journal " + journal + ": cannot create its directory " + dir + " ("
          + (e instanceof java.nio.file.AccessDeniedException ? "permission denied" : e.getMessage()) + ")");
      return false;
    }
  }
}
