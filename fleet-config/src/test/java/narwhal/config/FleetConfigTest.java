package narwhal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetConfigTest {

  private static final List<EngineSpec> TWO_ENGINES =
      List.of(
          EngineSpec.of("p0", "http://127.0.0.1:8100", EngineRole.PREFILL),
          EngineSpec.of("d0", "http://127.0.0.1:8101", EngineRole.DECODE));

  @Test
  void of_buildsADevelopmentFleetWithEveryDefault() {
    FleetConfig config = FleetConfig.of("m", TWO_ENGINES);

    assertThat(config.serving()).isEqualTo(ServingConfig.defaults());
    assertThat(config.serving().headerTimeoutS()).isEqualTo(20.0);
    assertThat(config.serving().idleTimeoutS()).isEqualTo(90.0);
    assertThat(config.serving().maxClientConnections()).isEqualTo(4096);
    assertThat(config.engine()).isEqualTo(EngineConfig.defaults());
    assertThat(config.recovery()).isEqualTo(RecoveryConfig.defaults());
    assertThat(config.slo()).isEqualTo(SloConfig.defaults());
    assertThat(config.engineContract()).isNull();
    assertThat(config.findEngine("d0")).contains(TWO_ENGINES.get(1));
    assertThat(config.findEngine("x0")).isEmpty();
  }

  @Test
  void engineSpecOf_usesDefaultDialectAndConnector() {
    EngineSpec spec = EngineSpec.of("p0", URI.create("http://h:1"), EngineRole.PREFILL);

    assertThat(spec.dialect()).isEqualTo("vllm");
    assertThat(spec.connector()).isEqualTo("nixl");
    assertThat(spec.pin()).isFalse();
    assertThat(spec.withPin(true).pin()).isTrue();
    assertThat(spec.withRole(EngineRole.BOTH).role()).isEqualTo(EngineRole.BOTH);
  }

  @Test
  void roles_sayWhichLegsTheyRun() {
    assertThat(EngineRole.PREFILL.canPrefill()).isTrue();
    assertThat(EngineRole.PREFILL.canDecode()).isFalse();
    assertThat(EngineRole.DECODE.canPrefill()).isFalse();
    assertThat(EngineRole.DECODE.canDecode()).isTrue();
    assertThat(EngineRole.BOTH.canPrefill()).isTrue();
    assertThat(EngineRole.BOTH.canDecode()).isTrue();
    assertThat(EngineRole.fromConfigName("both")).isEqualTo(EngineRole.BOTH);
    assertThat(EngineRole.fromConfigName("BOTH")).isNull();
  }

  @Test
  void servingCopies_changeOnlyTheirField() {
    ServingConfig d = ServingConfig.defaults();

    ServingConfig changed =
        d.withMaxAttempts(3)
            .withRetryBackoff(0.2, 2.0)
            .withRetryBudget(5, 0.5)
            .withRequestTimeoutS(30)
            .withPrefillTimeoutS(7)
            .withMaxRequestBytes(100)
            .withMaxResponseBytes(200)
            .withMaxConnections(9)
            .withQueue(4, 1.5)
            .withGracefulTimeoutS(3)
            .withHeaderTimeoutS(4)
            .withIdleTimeoutS(5)
            .withMaxClientConnections(10)
            .withAdmission(AdmissionMode.OPEN)
            .withAdmissionMargin(0.1);

    assertThat(changed)
        .isEqualTo(
            new ServingConfig(
                AdmissionMode.OPEN, 0.1, 9, 4, 1.5, 3, 0.2, 2.0, 5, 0.5, 100, 200, 30, 7, 3, 4, 5,
                10));
    assertThat(d.withRetryBaseS(0.3).retryBaseS()).isEqualTo(0.3);
    assertThat(d.withRetryCapS(3).retryCapS()).isEqualTo(3.0);
    assertThat(d.withRetryBudget(1).retryReplenish()).isEqualTo(d.retryReplenish());
    assertThat(d.withRetryReplenish(1).retryBudget()).isEqualTo(d.retryBudget());
  }

  @Test
  void engineCopies_changeOnlyTheirField() {
    EngineConfig changed =
        EngineConfig.defaults()
            .withFirstTokenTimeoutS(1)
            .withDecodeReadTimeoutS(2)
            .withTokenize(false, 3)
            .withCharsPerToken(4)
            .withConnectTimeoutS(5)
            .withPoolTimeoutS(6)
            .withHealthTimeoutS(7)
            .withEngineApiKeyEnv("K")
            .withDialect("d");

    assertThat(changed)
        .isEqualTo(new EngineConfig(1, "", 2, false, 3, 4, 5, 6, 7, 0, "K", "nixl", "d"));
  }

  @Test
  void recoveryAndControllerCopies_changeOnlyTheirField() {
    HealthConfig health = new HealthConfig(1, 2, 3, 4, 5, 6, 7, 8);
    RecoveryConfig recovery =
        RecoveryConfig.defaults()
            .withEjectAfter(1)
            .withReadmitEvery(2)
            .withFailureQuarantineS(3)
            .withEngineRestartPolicy(EngineRestartPolicy.WHOLE_WAVE)
            .withHealth(health);

    assertThat(recovery)
        .isEqualTo(
            new RecoveryConfig(
                1, 2, 10, 2, 3, EngineRestartPolicy.WHOLE_WAVE, "runs/state.json", false, health));

    ControllerConfig controller =
        ControllerConfig.defaults().withAdvisory(true).withMonitorIntervalS(0.25);
    assertThat(controller.advisory()).isTrue();
    assertThat(controller.monitorIntervalS()).isEqualTo(0.25);
    assertThat(controller.thresholds()).isEqualTo(ThresholdsConfig.defaults());
  }

  @Test
  void fleetCopies_replaceOneSection() {
    FleetConfig base = FleetConfig.of("m", TWO_ENGINES);
    ServingConfig serving = ServingConfig.defaults().withMaxAttempts(2);
    EngineConfig engine = EngineConfig.defaults().withDecodeReadTimeoutS(0);
    RecoveryConfig recovery = RecoveryConfig.defaults().withFailureQuarantineS(5);

    FleetConfig changed = base.withServing(serving).withEngine(engine).withRecovery(recovery);

    assertThat(changed.serving()).isEqualTo(serving);
    assertThat(changed.engine()).isEqualTo(engine);
    assertThat(changed.recovery()).isEqualTo(recovery);
    assertThat(changed.engines()).isEqualTo(base.engines());
    assertThat(changed.controller()).isEqualTo(base.controller());
  }

  @Test
  void handoffBound_isLeaseMinusFloorOfASixth() {
    assertThat(EngineContract.defaults().handoffBoundS()).isNull();
    assertThat(EngineContract.defaults().withKvLeaseDurationS(30.0).handoffBoundS())
        .isEqualTo(25.0);
    assertThat(EngineContract.defaults().withKvLeaseDurationS(7.5).handoffBoundS())
        .isEqualTo(6.5);
    assertThat(EngineContract.defaults().withKvLeaseDurationS(5.0).handoffBoundS())
        .isEqualTo(5.0);

    FleetConfig fleet =
        FleetConfig.of("m", TWO_ENGINES)
            .withEngineContract(EngineContract.builder().kvLeaseDurationS(12.0).build());
    assertThat(fleet.isDevelopmentFleet()).isFalse();
    assertThat(fleet.handoffBoundS()).isEqualTo(10.0);
  }

  @Test
  void collections_areCopiedAndUnmodifiable() {
    Map<String, Object> values = new HashMap<>();
    values.put("gpus", 2);
    HardwareConfig hardware = new HardwareConfig(values);
    values.put("gpus", 3);

    assertThat(hardware.get("gpus")).isEqualTo(2);
    assertThatThrownBy(() -> hardware.values().put("x", 1))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> FleetConfig.of("m", TWO_ENGINES).engines().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
