package narwhal.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import narwhal.config.FleetConfig;
import narwhal.sim.SimOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code narwhal demo}: two prefill and two decode simulated engines plus the router, one process;
 * with {@code --replicas N}, N routers on consecutive ports sharing the fleet through a throwaway
 * etcd (the {@code etcd} binary on the PATH), so an ejection or a role move can be watched
 * appearing on every replica.
 */
@Command(name = "demo", sortOptions = false,
    description = "A simulated fleet (2 prefill + 2 decode engines) plus the router, in one process.")
final class DemoCommand implements Callable<Integer> {

  @ParentCommand
  private Narwhal narwhal;

  @Mixin
  private ListenFlags listen;

  @Option(names = "--replicas", paramLabel = "N", description = {"routers to run over the one fleet, on consecutive "
      + "ports from --port (gRPC from --grpc-port), sharing it through a throwaway etcd: needs the etcd binary "
      + "on the PATH (Debian: apt-get install etcd-server); default ${DEFAULT-VALUE}"})
  private int replicas = 1;

  private DemoCommand() {}

  @Override
  public Integer call() {
    PrintStream out = narwhal.out;
    String host = listen.host;
    // Before preflight, which may spend a while probing engines, so a typo fails at once.
    listen.validate();
    Integer grpcPort = listen.grpcPort();
    if (replicas < 1 || replicas > 16) {
      narwhal.err.println("narwhal demo: --replicas must be from 1 to 16, got " + replicas);
      return CheckCommand.CONFIG_ERROR;
    }
    if (replicas > 1) {
      return DemoReplicas.run(narwhal, listen, grpcPort, replicas);
    }
    EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    // Visible pacing: a token every 20 ms, so streaming can be watched in a terminal.
    // Nothing in the demo reads what the engines received: keep no record of it (SimFlags says why).
    SimOptions options =
        SimOptions.builder().model(DemoFleet.MODEL).interTokenMillis(20).maxRecordedRequests(0).build();
    DemoFleet fleet = DemoFleet.start(2, 2, options, simGroup);
    // The simulated engines' profiles are their options, exactly: written for this run rather than
    // measured, so the demo starts at once and prices admission as a profiled fleet does.
    FleetConfig config;
    try {
      Path profiles = Files.createTempFile("narwhal-demo-profiles-", ".json");
      profiles.toFile().deleteOnExit();
      config = fleet.configWithExactProfiles(profiles);
    } catch (IOException e) {
      fleet.close();
      simGroup.shutdownGracefully();
      throw new UncheckedIOException("cannot write the demo fleet's profiles", e);
    }
    // The demo fleet is healthy by construction; preflight here is a startup check of the whole
    // path (engines, model, generation, every KV pair, profiles) that costs well under a second.
    PreflightReport preflight = Preflight.run(config, simGroup);
    // Preflight results go to stderr, as for serve and check: stdout is the banner a person reads.
    if (preflight.passed()) {
      narwhal.err.println("narwhal demo: " + preflight.summary());
    } else {
      preflight.print(narwhal.err);
    }
    RouterServer server;
    try {
      server = RouterServer.start(config, host, listen.port, grpcPort, listen.journal);
    } catch (RuntimeException e) {
      fleet.close();
      simGroup.shutdownGracefully();
      throw e;
    }
    // Before anything announces the router: a SIGTERM from now on drains it.
    ShutdownSignal shutdown = ShutdownSignal.install(server.gracefulTimeout());
    String base = "http://" + host + ":" + server.port();
    warmUp(base);
    out.println("narwhal demo: router on " + base + " over 2 prefill + 2 decode simulated engines");
    if (server.grpcPort() > 0) {
      out.println("narwhal demo: gRPC (narwhal.v1.Router, health, reflection) on " + host + ":" + server.grpcPort());
    }
    fleet.engines().forEach(e -> out.println("  engine " + e.engineId() + " at " + e.baseUrl()));
    out.println();
    out.println("Try:");
    out.println("  curl -N " + base + "/v1/completions -H 'Content-Type: application/json' \\");
    out.println("    -d '{\"model\": \"" + DemoFleet.MODEL
        + "\", \"prompt\": \"Tell me about narwhals\", \"max_tokens\": 24, \"stream\": true}'");
    if (server.grpcPort() > 0) {
      out.println("  grpcurl -plaintext -d '{\"route\": \"ROUTE_COMPLETIONS\", \"prompt\": {\"text\": "
          + "\"Tell me about narwhals\"}, \"max_tokens\": 24}' " + host + ":" + server.grpcPort()
          + " narwhal.v1.Router/StreamCompletion");
    }
    out.println();
    out.println("Ctrl-C stops it.");
    out.flush();
    // On SIGTERM: stop admitting, let in-flight streams finish (serving.graceful_timeout_s), close.
    shutdown.awaitThenClose(server::shutdownGracefully, fleet, simGroup::shutdownGracefully);
    return 0;
  }

  /**
   * Sends a few requests through the router before announcing it: a cold JVM can take longer
   * than the first-token timeout to serve its very first stream, and the first curl a person
   * pastes should not be the one that pays for class loading.
   */
  static void warmUp(String base) {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    String body = "{\"model\":\"" + DemoFleet.MODEL + "\",\"prompt\":\"warm up\",\"max_tokens\":2,\"stream\":true}";
    for (int i = 0; i < 4; i++) {
      try {
        client.send(HttpRequest.newBuilder(URI.create(base + "/v1/completions"))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding());
      } catch (IOException e) {
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
