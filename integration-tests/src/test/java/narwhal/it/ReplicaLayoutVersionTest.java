package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.cluster.EtcdProcess;
import narwhal.config.ClusterConfig;
import narwhal.config.FleetConfig;
import narwhal.server.DemoFleet;
import narwhal.server.RouterServer;
import org.junit.jupiter.api.Test;

/**
 * Version skew: a replica that finds a key layout it does not know under its prefix (a newer
 * replica wrote it) refuses to join, and its start fails saying why and what to do; the same
 * build on a fresh prefix joins.
 */
class ReplicaLayoutVersionTest {

  @Test
  void unknownKeyLayout_replicaRefusesToJoin_sayingWhy() {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (EtcdProcess etcd = EtcdProcess.start(); DemoFleet fleet = DemoFleet.start(1, 1,
        RoutedFleet.fastEngines().build(), group);
        Client client = Client.builder().endpoints(etcd.clientUrl()).build()) {
      client.getKVClient().put(bytes("/skewed/layout"), bytes("99")).get(10, TimeUnit.SECONDS);
      FleetConfig skewed = fleet.config().withCluster(ClusterConfig.of(List.of(etcd.clientUrl()))
          .withKeyPrefix("/skewed").withName("r-new"));
      assertThatThrownBy(() -> RouterServer.start(skewed, "127.0.0.1", 0, null).close())
          .hasMessageContaining("refused to join the cluster")
          .hasMessageContaining("key layout 99")
          .hasMessageContaining("this build knows layout 1");

      FleetConfig fresh = skewed.withCluster(skewed.cluster().withKeyPrefix("/fresh"));
      try (RouterServer router = RouterServer.start(fresh, "127.0.0.1", 0, null)) {
        assertThat(router.router().notReadyReason()).isNull();
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void etcdAwayAtStart_replicaServesNotReady_untilItHasJoined() {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (EtcdProcess etcd = EtcdProcess.start(); DemoFleet fleet = DemoFleet.start(1, 1,
        RoutedFleet.fastEngines().build(), group)) {
      etcd.pause();
      FleetConfig config = fleet.config().withCluster(ClusterConfig.of(List.of(etcd.clientUrl()))
          .withKeyPrefix("/late").withName("r-late"));
      try (RouterServer router = RouterServer.start(config, "127.0.0.1", 0, null)) {
        RouterClient client = new RouterClient("http://127.0.0.1:" + router.port());
        assertThat(client.get("/ready").statusCode()).isEqualTo(503);
        assertThat(router.router().notReadyReason()).startsWith("cluster joining");
        etcd.resume();
        narwhal.testing.Poll.until("the replica joins once etcd answers", java.time.Duration.ofSeconds(20),
            () -> client.get("/ready").statusCode() == 200);
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
