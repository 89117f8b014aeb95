package narwhal.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5's stand-in for grpc-testing's {@code GrpcCleanupRule} (a JUnit 4 rule): channels and
 * servers registered during a test are shut down after it, newest first, each given a moment to
 * terminate gracefully and then forced. Use as a {@code @RegisterExtension} field.
 */
final class GrpcCleanupExtension implements AfterEachCallback {

  private final Deque<Object> resources = new ArrayDeque<>();

  <T extends ManagedChannel> T register(T channel) {
    resources.push(channel);
    return channel;
  }

  <T extends Server> T register(T server) {
    resources.push(server);
    return server;
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    while (!resources.isEmpty()) {
      Object resource = resources.pop();
      if (resource instanceof ManagedChannel channel) {
        channel.shutdown();
        if (!channel.awaitTermination(200, TimeUnit.MILLISECONDS)) {
          channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      } else if (resource instanceof Server server) {
        server.shutdown();
        if (!server.awaitTermination(200, TimeUnit.MILLISECONDS)) {
          server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      }
    }
  }
}
