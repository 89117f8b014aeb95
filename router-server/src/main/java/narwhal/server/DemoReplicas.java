package narwhal.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import narwhal.cluster.EtcdProcess;
import narwhal.config.ClusterConfig;
import narwhal.config.FleetConfig;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.jspecify.annotations.Nullable;

/**
 * {@code narwhal demo --replicas N}: one simulated fleet (2P2D), a throwaway etcd on loopback ports
 * with a temporary data directory, and N routers on consecutive ports sharing the fleet through
 * it. It prints how to watch the replicas agree: an engine failing seen by one router is out of
 * placement on all of them.
 */
final class DemoReplicas {

  private DemoReplicas() {}

  static int run(Narwhal narwhal, ListenFlags listen, @Nullable Integer grpcPort, int n) {
    PrintStream out = narwhal.out;
    if (EtcdProcess.findBinary() == null) {
      narwhal.err.println("narwhal demo: --replicas needs the etcd binary on the PATH (Debian: apt-get install "
          + "etcd-server; or put an etcd 3.4+ binary on the PATH); nothing started");
      return CheckCommand.FAILED;
    }
    List<AutoCloseable> toClose = new ArrayList<>();
    EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    EtcdProcess etcd = null;
    DemoFleet fleet = null;
    List<RouterServer> routers = new ArrayList<>();
    try {
      etcd = EtcdProcess.start();
      fleet = DemoFleet.start(2, 2, SimOptions.builder().model(DemoFleet.MODEL).interTokenMillis(20)
          .maxRecordedRequests(0).build(), simGroup);
      Path profiles = Files.createTempFile("narwhal-demo-profiles-", ".json");
      profiles.toFile().deleteOnExit();
      FleetConfig base = fleet.configWithExactProfiles(profiles);
      // A breaker that acts within a second or two, so a fault is visible while one watches.
      base = base.withRecovery(base.recovery().withEjectAfter(2).withReadmitEvery(5))
          .withCluster(ClusterConfig.of(List.of(etcd.clientUrl())).withKeyPrefix("/narwhal-demo"));
      for (int i = 0; i < n; i++) {
        int port = listen.port == 0 ? 0 : listen.port + i;
        Integer grpc = grpcPort == null ? null : grpcPort == 0 ? 0 : grpcPort + i;
        Path journal = listen.journal == null ? null
            : i == 0 ? listen.journal : Path.of(listen.journal + ".r" + i);
        FleetConfig config = base.withCluster(base.cluster().withName("router-" + (i + 1)));
        routers.add(RouterServer.start(config, listen.host, port, grpc, journal));
      }
    } catch (IOException | RuntimeException e) {
      routers.forEach(RouterServer::close);
      if (fleet != null) {
        fleet.close();
      }
      if (etcd != null) {
        etcd.close();
      }
      simGroup.shutdownGracefully();
      narwhal.err.println("narwhal demo: " + e.getMessage());
      return CheckCommand.FAILED;
    }
    ShutdownSignal shutdown = ShutdownSignal.install(routers.get(0).gracefulTimeout());
    out.println("narwhal demo: " + n + " routers over 2 prefill + 2 decode simulated engines, sharing them through "
        + "etcd at " + etcd.clientUrl());
    for (int i = 0; i < n; i++) {
      String base = "http://" + listen.host + ":" + routers.get(i).port();
      DemoCommand.warmUp(base);
      out.println("  router-" + (i + 1) + " on " + base
          + (routers.get(i).grpcPort() > 0 ? " (gRPC " + listen.host + ":" + routers.get(i).grpcPort() + ")" : ""));
    }
    for (SimEngine e : fleet.engines()) {
      out.println("  engine " + e.engineId() + " at " + e.baseUrl());
    }
    String first = "http://" + listen.host + ":" + routers.get(0).port();
    String last = "http://" + listen.host + ":" + routers.get(n - 1).port();
    String d0 = fleet.engine("d0").baseUrl();
    out.println();
    out.println("Watch an ejection reach every router:");
    out.println("  curl -s " + last + "/narwhal/state | jq '.cluster, [.engines[] | {iid, role, state, cause}]'");
    out.println("  curl -s -X POST " + d0 + "/admin/faults -d '\"status=500,phase=decode\"'   # d0 starts failing");
    out.println("  for i in 1 2 3 4; do curl -s " + first + "/v1/completions -H 'Content-Type: application/json' \\");
    out.println("    -d '{\"model\": \"" + DemoFleet.MODEL + "\", \"prompt\": \"hi '$i'\", \"max_tokens\": 4}' "
        + ">/dev/null; done");
    out.println("  curl -s " + last + "/narwhal/state | jq '[.engines[] | {iid, state, cause}]'   # d0 is out here too");
    out.println("  curl -s -X DELETE " + d0 + "/admin/faults    # fixed: one router probes it, all readmit it");
    out.println();
    out.println("Ctrl-C stops it.");
    out.flush();
    toClose.addAll(routers.stream().map(r -> (AutoCloseable) r::shutdownGracefully).toList());
    toClose.add(fleet);
    toClose.add(etcd);
    toClose.add(simGroup::shutdownGracefully);
    shutdown.awaitThenClose(toClose.toArray(AutoCloseable[]::new));
    return 0;
  }
}
