package narwhal.it;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import narwhal.cluster.EtcdProcess;
import narwhal.config.ClusterConfig;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.EngineState;
import narwhal.server.DemoFleet;
import narwhal.server.RouterServer;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.jspecify.annotations.Nullable;

/**
 * A real etcd, a simulated fleet and N router replicas in this JVM, each on its own ephemeral
 * loopback port and its own event loops, sharing the fleet through the etcd under a key prefix
 * of the test's own. For tests that need no signal sent to a replica (those run replicas as child
 * processes).
 */
final class Replicas implements AutoCloseable {

  final EtcdProcess etcd;
  final String prefix = "/narwhal-it/" + UUID.randomUUID().toString().substring(0, 8);
  private final EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  final DemoFleet fleet;
  private final UnaryOperator<FleetConfig> tweak;
  private final List<@Nullable RouterServer> routers = new ArrayList<>();

  private Replicas(int replicas, int prefill, int decode, SimOptions sim, UnaryOperator<FleetConfig> tweak) {
    this.tweak = tweak;
    etcd = EtcdProcess.start();
    DemoFleet started = null;
    try {
      started = DemoFleet.start(prefill, decode, sim, simGroup);
      fleet = started;
      for (int i = 0; i < replicas; i++) {
        routers.add(startReplica(i));
      }
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  static Replicas start(int replicas, int prefill, int decode, UnaryOperator<FleetConfig> tweak) {
    return new Replicas(replicas, prefill, decode, RoutedFleet.fastEngines().build(), tweak);
  }

  static Replicas start(int replicas, int prefill, int decode, SimOptions sim, UnaryOperator<FleetConfig> tweak) {
    return new Replicas(replicas, prefill, decode, sim, tweak);
  }

  /** The fleet file replica {@code i} serves: the test's tweaks plus the cluster section. */
  FleetConfig config(int i) {
    FleetConfig c = tweak.apply(fleet.config());
    ClusterConfig cluster = c.cluster() != null ? c.cluster()
        : ClusterConfig.of(List.of(etcd.clientUrl()));
    return c.withCluster(cluster.withName("r" + i).withKeyPrefix(prefix));
  }

  private RouterServer startReplica(int i) {
    return RouterServer.start(config(i), "127.0.0.1", 0, null);
  }

  RouterServer router(int i) {
    RouterServer r = routers.get(i);
    if (r == null) {
      throw new IllegalStateException("replica r" + i + " is stopped");
    }
    return r;
  }

  RouterClient client(int i) {
    return new RouterClient("http://127.0.0.1:" + router(i).port());
  }

  EngineState engine(int replica, String iid) {
    return router(replica).router().fleet().get(iid);
  }

  SimEngine sim(String iid) {
    return fleet.engine(iid);
  }

  int size() {
    return routers.size();
  }

  /** Stops replica {@code i} as a clean shutdown does (it leaves the cluster). */
  void stop(int i) {
    RouterServer r = routers.set(i, null);
    if (r != null) {
      r.close();
    }
  }

  /** Starts replica {@code i} again after {@link #stop}. */
  void restart(int i) {
    if (routers.get(i) == null) {
      routers.set(i, startReplica(i));
    }
  }

  @Override
  public void close() {
    for (int i = 0; i < routers.size(); i++) {
      try {
        stop(i);
      } catch (RuntimeException e) {
        // keep closing the others
      }
    }
    if (fleet != null) {
      fleet.close();
    }
    simGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    etcd.close();
  }
}
