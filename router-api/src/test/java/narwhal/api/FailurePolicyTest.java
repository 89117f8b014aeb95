package narwhal.api;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.api.FailurePolicy.BreakerRemedy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The failure policy's rows, as the spec and the reference state them: retries only for transport
 * errors, timeouts, 408/429/5xx (never for an engine's own rejection, an unusable handoff or the
 * router's size limit); the breaker's remedies per class; quarantine only for engine faults.
 */
class FailurePolicyTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "CONNECTION,       true,  true,  EJECT",
    "TIMEOUT,          true,  true,  VERIFY_WITH_HEALTH_CHECK",
    "OVERLOAD,         true,  true,  VERIFY_WITH_HEALTH_CHECK",
    "STREAM,           true,  true,  HOLD_UNTIL_INFERENCE_PROBE",
    "INFERENCE_STATUS, true,  true,  HOLD_UNTIL_INFERENCE_PROBE",
    "KV_HANDOFF,       false, true,  HOLD_UNTIL_INFERENCE_PROBE",
    "REJECTED,         false, false, COUNTS_AS_ALIVE",
    "RESPONSE_LIMIT,   false, false, NONE",
  })
  void eachClass_hasTheSpecsRule(FailureClass cls, boolean retryable, boolean quarantines, BreakerRemedy remedy) {
    FailurePolicy.Rule rule = FailurePolicy.of(cls);

    assertThat(rule.retryable()).as("retryable").isEqualTo(retryable);
    assertThat(rule.quarantines()).as("quarantines").isEqualTo(quarantines);
    assertThat(rule.remedy()).as("breaker remedy").isEqualTo(remedy);
  }

  @ParameterizedTest
  @EnumSource(FailureClass.class)
  void theBreakerCountsExactlyTheClassesWithARemedy(FailureClass cls) {
    BreakerRemedy remedy = FailurePolicy.of(cls).remedy();
    boolean acts = remedy != BreakerRemedy.NONE && remedy != BreakerRemedy.COUNTS_AS_ALIVE;

    assertThat(FailurePolicy.breakerClasses().contains(cls)).isEqualTo(acts);
    assertThat(FailurePolicy.of(cls).countsTowardBreaker()).isEqualTo(acts);
  }

  @Test
  void everyClassThatQuarantines_isCountedByTheBreaker() {
    for (FailureClass cls : FailureClass.values()) {
      if (FailurePolicy.of(cls).quarantines()) {
        assertThat(FailurePolicy.breakerClasses()).as(cls.wireName()).contains(cls);
      }
    }
  }

  @Test
  void theGrpcCode_isReadFromTheStatusTheErrorCarries() {
    assertThat(FailurePolicy.grpcCode(RouterError.of(504, "decode", "engine_timeout", "m")))
        .isEqualTo(CanonicalCode.DEADLINE_EXCEEDED);
    assertThat(FailurePolicy.grpcCode(RouterError.of(502, "prefill", "engine_error", "m")))
        .isEqualTo(CanonicalCode.UNAVAILABLE);
    assertThat(CanonicalCode.of(RouterError.of(429, "t", null, "m"))).isEqualTo(FailurePolicy.grpcCode(429));
    assertThat(FailurePolicy.httpStatus(RouterError.of(413, "t", null, "m"))).isEqualTo(413);
  }
}
