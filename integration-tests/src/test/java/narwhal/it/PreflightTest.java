package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineContract;
import narwhal.config.FleetConfig;
import narwhal.server.DemoFleet;
import narwhal.server.Preflight;
import narwhal.server.PreflightReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Preflight over a simulated 2 x 2 fleet on real ports: the public API the serve command uses. */
class PreflightTest {

  private final EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final DemoFleet fleet = DemoFleet.start(2, 2, RoutedFleet.fastEngines().build(), simGroup);

  @AfterEach
  void stop() {
    fleet.close();
    simGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @TempDir
  Path dir;

  /** The fleet as after narwhal profile: predictive admission (the default) needs profiles. */
  private FleetConfig profiled() throws IOException {
    return fleet.configWithExactProfiles(dir.resolve("profiles.json"));
  }

  @Test
  void preflight_healthyFleet_passesEveryEngineAndEveryPair() throws IOException {
    PreflightReport report = Preflight.run(profiled());

    assertThat(report.passed()).as(String.join("\n", report.lines())).isTrue();
    assertThat(report.engines()).extracting(r -> r.subject()).containsExactly("p0", "p1", "d0", "d1");
    assertThat(report.transfers()).extracting(PreflightReport.Pair::subject)
        .containsExactly("p0 -> d0", "p0 -> d1", "p1 -> d0", "p1 -> d1");
    assertThat(fleet.engine("d0").stats().kvPulls()).as("each decode engine pulled from both producers").isEqualTo(2);
    assertThat(report.summary()).isEqualTo("preflight passed: 4 engines, 4 kv transfers, 4 profiles");
    assertThat(report.profiles().engines()).extracting(r -> r.detail()).allSatisfy(d -> assertThat(d)
        .startsWith("profile: own row (generation unknown: no attestation_url)"));
  }

  @Test
  void preflight_engineStopped_failsItAsUnreachableAndSkipsItsPairs() {
    fleet.engine("d1").close();

    PreflightReport report = Preflight.run(fleet.config());

    assertThat(report.passed()).isFalse();
    assertThat(report.lines()).contains("skip p0 -> d1  not probed: d1 failed its engine checks")
        .anySatisfy(l -> assertThat(l).startsWith("FAIL d1  unreachable: "));
  }

  @Test
  void preflight_withoutProfiles_failsTheProfileGateOnly() {
    PreflightReport report = Preflight.run(fleet.config());

    assertThat(report.passed()).isFalse();
    assertThat(report.engines()).allSatisfy(r -> assertThat(r.passed()).isTrue());
    assertThat(report.failedEngines()).as("no engine is held out of placement for want of a profile").isEmpty();
    assertThat(report.summary()).isEqualTo("preflight FAILED: 0 of 4 engines, 0 of 4 kv transfers, 4 of 4 profiles "
        + "did not pass");
  }

  @Test
  void preflight_contractWithAttestedSims_passes() throws IOException {
    FleetConfig config = profiled()
        .withEngines(fleet.config().engines().stream()
            .map(e -> e.withAttestationUrl(e.url())).toList())
        .withEngineContract(EngineContract.builder().vllmVersion("0.11.0").kvHeads(8).kvLeaseDurationS(30.0).build());

    PreflightReport report = Preflight.run(config);

    assertThat(report.passed()).isTrue();
    assertThat(report.engines()).allSatisfy(r -> assertThat(r.detail()).contains("contract ok (3 fields)"));
  }
}
