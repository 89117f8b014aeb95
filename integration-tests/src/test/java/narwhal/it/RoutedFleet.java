package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import narwhal.config.FleetConfig;
import narwhal.server.DemoFleet;
import narwhal.server.RouterServer;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.jspecify.annotations.Nullable;

/**
 * A simulated fleet and a router in front of it, on ephemeral loopback ports: what every
 * integration test starts. Engines are fast (1 ms per token) so tests are quick.
 */
final class RoutedFleet implements AutoCloseable {

  static final String MODEL = "narwhal-sim";

  private final EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  final DemoFleet fleet;
  final RouterServer router;
  final RouterClient client;

  private RoutedFleet(int prefill, int decode, SimOptions sim, UnaryOperator<FleetConfig> tweak,
      @Nullable Path journal) {
    fleet = DemoFleet.start(prefill, decode, sim, simGroup);
    // gRPC beside HTTP on an ephemeral port, as `narwhal serve` does on 50051.
    router = RouterServer.start(tweak.apply(fleet.config()), "127.0.0.1", 0, 0, journal, boss, workers);
    client = new RouterClient("http://127.0.0.1:" + router.port());
  }

  static SimOptions.Builder fastEngines() {
    return SimOptions.builder().model(MODEL).interTokenMillis(1).prefillBaseMillis(1);
  }

  static RoutedFleet start() {
    return new RoutedFleet(2, 2, fastEngines().build(), c -> c, null);
  }

  static RoutedFleet start(int prefill, int decode, SimOptions sim, UnaryOperator<FleetConfig> tweak,
      @Nullable Path journal) {
    return new RoutedFleet(prefill, decode, sim, tweak, journal);
  }

  SimEngine engine(String iid) {
    return fleet.engine(iid);
  }

  /** Clears what the engines recorded, so a test sees only its own traffic. */
  void clearReceived() {
    fleet.engines().forEach(SimEngine::clearReceived);
  }

  /** Waits (bounded) until no reservation is held: every request released what it took. */
  void assertReservationsReturnToZero() {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < deadline && residentWork() > 0) {
      Thread.onSpinWait();
    }
    assertThat(router.router().fleet().totalResidentPrefill()).as("resident prefill").isZero();
    assertThat(router.router().fleet().totalResidentDecode()).as("resident decode").isZero();
  }

  private int residentWork() {
    return router.router().fleet().totalResidentPrefill() + router.router().fleet().totalResidentDecode();
  }

  @Override
  public void close() {
    router.close();
    fleet.close();
    simGroup.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }
}
