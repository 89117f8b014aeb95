package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineConfig;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.EngineChecks;
import org.junit.jupiter.api.Test;

/** How long preflight waits for a check, and what a stuck or broken check becomes: a FAIL line. */
class PreflightWaitTest {

  @Test
  void transferBound_coversThePrefillLeg_theDecodeLegsFirstTokens_andAConnection() {
    FleetConfig base = FleetConfig.of("m", List.of(EngineSpec.of("e0", "http://127.0.0.1:9", EngineRole.BOTH)));
    FleetConfig config = base.withServing(base.serving().withPrefillTimeoutS(120));

    EngineConfig engine = config.engine();
    long expected = TimeUnit.SECONDS.toNanos(120)
        + 3 * Math.round(engine.firstTokenTimeoutS() * 1e9) + Math.round(engine.healthTimeoutS() * 1e9);
    assertThat(Preflight.transferBoundNanos(config)).isEqualTo(expected);
    assertThat(Preflight.engineBoundNanos(config))
        .isEqualTo(expected + 3 * Math.round(engine.healthTimeoutS() * 1e9));
  }

  @Test
  void aCheckThatNeverFinishes_isAFailLine_notAnException() {
    CompletableFuture<CheckResult> never = new CompletableFuture<>();

    CheckResult result = Preflight.await(never, TimeUnit.MILLISECONDS.toNanos(20), EngineChecks.KV_TRANSFER,
        "p0 -> d0", null);

    assertThat(result.failed()).isTrue();
    assertThat(result.subject()).isEqualTo("p0 -> d0");
    assertThat(result.detail()).startsWith("check did not finish within 20 ms, past every timeout that bounds it");
    PreflightReport report = new PreflightReport(List.of(),
        List.of(new PreflightReport.Pair("p0 -> d0", result, null)));
    assertThat(report.passed()).isFalse();
    assertThat(report.lines().get(0)).startsWith("FAIL p0 -> d0  check did not finish");
  }

  @Test
  void aCheckThatBroke_isAFailLineBlamingTheEngine() {
    CompletableFuture<CheckResult> broken = CompletableFuture.failedFuture(new IllegalStateException("bug"));

    CheckResult result = Preflight.await(broken, TimeUnit.SECONDS.toNanos(1), EngineChecks.ENGINE, "e0", "e0");

    assertThat(result.failed()).isTrue();
    assertThat(result.failedIid()).isEqualTo("e0");
    assertThat(result.detail()).startsWith("check broke: java.lang.IllegalStateException: bug");
  }
}
