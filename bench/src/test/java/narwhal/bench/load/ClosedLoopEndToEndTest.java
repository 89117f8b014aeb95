package narwhal.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.bench.fleet.FleetFile;
import narwhal.bench.fleet.Ports;
import narwhal.config.FleetFileParser;
import narwhal.server.RouterServer;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import narwhal.sim.StreamFraming;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The generator against real sockets: two simulated engines and a router in this JVM, the direct
 * and narwhal arms at two small closed-loop levels. Checks correctness (every stream's exact
 * tokens and [DONE], no errors), never timing.
 */
class ClosedLoopEndToEndTest {

  private final EventLoopGroup sims = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final List<SimEngine> engines = new ArrayList<>();
  private RouterServer router;
  private Targets targets;

  @BeforeEach
  void start() throws Exception {
    SimOptions options = SimOptions.builder().model("narwhal-sim").interTokenMillis(2).prefillBaseMillis(1).build();
    SimEngine prefill = SimEngine.start(options.toBuilder().engineId("sim-p0").build(), sims);
    SimEngine decode = SimEngine.start(options.toBuilder().engineId("sim-d0").build(), sims);
    engines.add(prefill);
    engines.add(decode);
    List<HttpTarget> p = List.of(HttpTarget.of(prefill.baseUrl()));
    List<HttpTarget> d = List.of(HttpTarget.of(decode.baseUrl()));
    // The router runs on exactly the fleet file the bench generates.
    router = RouterServer.start(FleetFileParser.parse(FleetFile.render("narwhal-sim", p, d, 100), name -> null),
        "127.0.0.1", 0, null);
    targets = new Targets(p, d, new HttpTarget("127.0.0.1", router.port()), null);
  }

  @AfterEach
  void stop() {
    router.close();
    engines.forEach(SimEngine::close);
    sims.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void directAndNarwhalArms_twoLevels_everyStreamExactAndErrorFree() {
    Workload workload = new Workload("narwhal-sim", 16, 6, 8, 0);
    // Long enough for a stream to complete inside the window on a loaded machine, where the
    // in-process router's first requests (class loading, interpreted code) take hundreds of ms,
    // and over a second with other builds sharing the machine's two cores.
    LoadShape shape = LoadShape.of(Duration.ofMillis(20), Duration.ofMillis(2000), Duration.ofMillis(2000),
        Duration.ofSeconds(20));
    try (Generator generator = new Generator(2)) {
      for (int level : new int[] {1, 4}) {
        for (Arm arm : List.of(Arm.DIRECT, Arm.NARWHAL)) {
          RunResult r = generator.closedLoop(arm, workload, targets, level, shape, Phases.NONE);
          assertThat(r.stats().errors()).as("%s at %d: %s", arm, level, r.stats().firstError()).isZero();
          assertThat(r.drained()).isTrue();
          assertThat(r.stats().completed()).as("%s at %d completed", arm, level).isPositive();
          assertThat(r.stats().ttftUs().getTotalCount()).isPositive();
          assertThat(r.stats().itlUs().getTotalCount()).isPositive();
          assertThat(generator.openConnections()).as("connections closed after the run").isZero();
        }
      }
    }
    long pulls = engines.get(1).stats().kvPulls();
    assertThat(pulls).as("decode legs pulled KV from the prefill's descriptor").isPositive();
  }

  @Test
  void nginxBothArm_sendsThePrefillLegToTheProxysPrefillPort_andTheStreamToItsDecodePort() {
    // The engines stand in for nginx's two ports; the engine lists point nowhere, so a leg that
    // went past the "proxy" would fail.
    HttpTarget nowhere = new HttpTarget("127.0.0.1", Ports.free());
    Targets viaProxy = new Targets(List.of(nowhere), List.of(nowhere), null,
        targets.decode().get(0), targets.prefill().get(0));
    long prefills = engines.get(0).stats().prefills();
    try (Generator generator = new Generator(1)) {
      RunResult r = generator.closedLoop(Arm.NGINX_BOTH, new Workload("narwhal-sim", 8, 4, 4, 0), viaProxy, 2,
          LoadShape.of(Duration.ZERO, Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(20)),
          Phases.NONE);
      assertThat(r.stats().errors()).as(r.stats().firstError()).isZero();
      assertThat(r.stats().completed()).isPositive();
      assertThat(engines.get(0).stats().prefills() - prefills).as("prefill legs at the prefill port")
          .isGreaterThanOrEqualTo(r.stats().completed());
    }
    assertThat(engines.get(1).stats().kvPulls()).as("decode legs at the decode port").isPositive();
  }

  @Test
  void closeDelimitedEngineStreams_directArm_readsToClose_neverReusesAClosedConnection_noErrors() {
    engines.forEach(e -> e.setStreamFraming(StreamFraming.CLOSE));
    SimEngine decode = engines.get(1);
    Workload workload = new Workload("narwhal-sim", 16, 6, 8, 0);
    LoadShape shape = LoadShape.of(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofMillis(600),
        Duration.ofSeconds(20));
    try (Generator generator = new Generator(2)) {
      for (int level : new int[] {1, 4}) {
        long connections = decode.stats().totalConnections();
        long decodeLegs = decode.stats().kvPulls();
        RunResult r = generator.closedLoop(Arm.DIRECT, workload, targets, level, shape, Phases.NONE);
        assertThat(r.stats().errors()).as("at %d: %s", level, r.stats().firstError()).isZero();
        assertThat(r.stats().completed()).isPositive();
        assertThat(r.drained()).isTrue();
        long legs = decode.stats().kvPulls() - decodeLegs;
        assertThat(legs).isPositive();
        assertThat(decode.stats().totalConnections() - connections)
            .as("a new decode connection for each of %d close-delimited streams", legs).isEqualTo(legs);
        assertThat(generator.openConnections()).isZero();
      }
    }
  }

  @Test
  void phasesAroundTheWindow_runInOrder_onceEach() {
    List<String> calls = new ArrayList<>();
    Phases a = new Phases() {
      @Override
      public void windowOpening() {
        calls.add("a:opening");
      }

      @Override
      public void windowOpened() {
        calls.add("a:opened");
      }

      @Override
      public void windowClosed() {
        calls.add("a:closed");
      }
    };
    Phases b = new Phases() {
      @Override
      public void windowOpening() {
        calls.add("b:opening");
      }

      @Override
      public void windowClosed() {
        calls.add("b:closed");
      }
    };
    try (Generator generator = new Generator(1)) {
      generator.closedLoop(Arm.DIRECT, new Workload("narwhal-sim", 4, 2, 2, 0), targets, 1,
          LoadShape.of(Duration.ZERO, Duration.ZERO, Duration.ofMillis(100), Duration.ofSeconds(20)), a.andThen(b));
    }
    assertThat(calls).containsExactly("a:opening", "b:opening", "a:opened", "a:closed", "b:closed");
  }

  @Test
  void openLoop_poissonArrivals_completeWithoutErrors() {
    Workload workload = new Workload("narwhal-sim", 8, 4, 4, 0);
    try (Generator generator = new Generator(1)) {
      RunResult r = generator.openLoop(Arm.DIRECT, workload, targets, 50, 1, 100,
          LoadShape.of(Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(600), Duration.ofSeconds(20)),
          Phases.NONE);
      assertThat(r.stats().errors()).as(r.stats().firstError()).isZero();
      assertThat(r.stats().started()).isPositive();
      assertThat(r.drained()).isTrue();
    }
  }

  @Test
  void wrongOracle_isCountedAsAnError() {
    // Tokens from seed 1 while the engines use seed 0: every stream must be flagged.
    Workload wrong = new Workload("narwhal-sim", 8, 4, 4, 1);
    try (Generator generator = new Generator(1)) {
      RunResult r = generator.closedLoop(Arm.DIRECT, wrong, targets, 2,
          LoadShape.of(Duration.ZERO, Duration.ZERO, Duration.ofMillis(300), Duration.ofSeconds(20)), Phases.NONE);
      assertThat(r.stats().completed()).isZero();
      assertThat(r.stats().errors()).isPositive();
      assertThat(r.stats().errorKinds()).containsKey("wrong_tokens");
    }
  }
}
