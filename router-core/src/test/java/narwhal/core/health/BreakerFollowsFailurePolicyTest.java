package narwhal.core.health;

import narwhal.api.FailureOrigin;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import narwhal.api.FailureClass;
import narwhal.api.FailurePolicy;
import narwhal.api.FailurePolicy.BreakerRemedy;
import narwhal.config.EngineRestartPolicy;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.HealthConfig;
import narwhal.config.RecoveryConfig;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.EngineProber;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.FailureStreaks;
import narwhal.core.fleet.Fleet;
import narwhal.core.legs.EngineFailure;
import narwhal.spi.Phase;
import narwhal.testing.ManualScheduler;
import narwhal.time.Scheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The breaker, the streak counter and the retry flag read the failure policy's row for a class:
 * for every class, what they do is what its row says (so changing a row changes them, and a site
 * that decided for itself would disagree with some row).
 */
class BreakerFollowsFailurePolicyTest {

  private static final int EJECT_AFTER = 3;

  private final ManualScheduler clock = new ManualScheduler();
  private final List<String> healthChecks = new ArrayList<>();
  private HealthMonitor monitor;

  @AfterEach
  void stop() {
    if (monitor != null) {
      monitor.close();
      clock.runPending();
    }
  }

  private Fleet start() {
    FleetConfig c = FleetConfig.of("m", List.of(
        EngineSpec.of("p0", "http://127.0.0.1:1/p0", EngineRole.PREFILL),
        EngineSpec.of("p1", "http://127.0.0.1:1/p1", EngineRole.PREFILL),
        EngineSpec.of("d0", "http://127.0.0.1:1/d0", EngineRole.DECODE)));
    c = c.withRecovery(new RecoveryConfig(EJECT_AFTER, 2, 0, 2, 0.0, EngineRestartPolicy.INDIVIDUAL,
        "runs/state.json", false, HealthConfig.defaults()))
        .withController(c.controller().withMonitorIntervalS(1.0));
    Fleet fleet = new Fleet(c.engines());
    monitor = new HealthMonitor(c, fleet, new PendingProber(), clock, HealthEvents.NONE);
    monitor.start();
    return fleet;
  }

  private static EngineFailure failure(FailureClass cls) {
    return new EngineFailure(Phase.PREFILL, FailureOrigin.HEADERS, cls, 502, 500, "engine_error", "p0", cls.wireName() + " on p0",
        null, true, null);
  }

  @ParameterizedTest
  @EnumSource(FailureClass.class)
  void aStreakOfEjectAfter_getsTheRowsRemedy(FailureClass cls) {
    Fleet fleet = start();
    EngineState p0 = fleet.get("p0");
    for (int i = 0; i < EJECT_AFTER; i++) {
      monitor.legFailed(failure(cls), null);
    }
    clock.runPending();

    BreakerRemedy remedy = FailurePolicy.of(cls).remedy();
    EngineCondition expected = switch (remedy) {
      case EJECT -> EngineCondition.EJECTED;
      case HOLD_UNTIL_INFERENCE_PROBE -> EngineCondition.HELD;
      case VERIFY_WITH_HEALTH_CHECK, COUNTS_AS_ALIVE, NONE -> EngineCondition.ACTIVE;
    };
    assertThat(p0.condition()).as(remedy.name()).isEqualTo(expected);
    assertThat(healthChecks).as("health checks for " + remedy)
        .isEqualTo(remedy == BreakerRemedy.VERIFY_WITH_HEALTH_CHECK ? List.of("p0") : List.of());
  }

  @ParameterizedTest
  @EnumSource(FailureClass.class)
  void theStreakCounter_countsExactlyTheRowsTheBreakerCounts(FailureClass cls) {
    FailureStreaks streaks = new FailureStreaks();

    int streak = streaks.recordFailure(cls);

    assertThat(streak).isEqualTo(FailurePolicy.of(cls).countsTowardBreaker() ? 1 : 0);
    assertThat(FailureStreaks.COUNTED.contains(cls)).isEqualTo(FailurePolicy.of(cls).countsTowardBreaker());
  }

  @ParameterizedTest
  @EnumSource(FailureClass.class)
  void aFailuresRetryability_isItsRows_andAFailureCanOnlyNarrowIt(FailureClass cls) {
    boolean retryable = FailurePolicy.of(cls).retryable();

    assertThat(failure(cls).isTransient()).isEqualTo(retryable);
    assertThat(new EngineFailure(Phase.DECODE, FailureOrigin.HEADERS, cls, 502, 500, "r", "d0", "m", null, true, null).isTransient()).isEqualTo(retryable);
    assertThat(new EngineFailure(Phase.DECODE, FailureOrigin.HEADERS, cls, 502, 500, "r", "d0", "m", null, false, null).isTransient()).isFalse();
    assertThat(failure(cls).rule()).isEqualTo(FailurePolicy.of(cls));
  }

  /** Records health checks and never completes a probe, so the decision under test stays visible. */
  private final class PendingProber implements EngineProber {
    @Override
    public CompletableFuture<CheckResult> health(EngineSpec engine, Scheduler loop) {
      healthChecks.add(engine.iid());
      return new CompletableFuture<>();
    }

    @Override
    public CompletableFuture<CheckResult> kvTransfer(EngineSpec producer, EngineSpec consumer, Scheduler loop) {
      return new CompletableFuture<>();
    }

    @Override
    public CompletableFuture<CheckResult> lifecycle(EngineSpec engine, List<EngineSpec> livePeers, Scheduler loop) {
      return new CompletableFuture<>();
    }
  }
}
