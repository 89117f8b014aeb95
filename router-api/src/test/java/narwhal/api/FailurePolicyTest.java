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
    "CONNECTION,       true,  true,  EJECT,                      true",
    "TIMEOUT,          true,  true,  VERIFY_WITH_HEALTH_CHECK,   false",
    "OVERLOAD,         true,  true,  VERIFY_WITH_HEALTH_CHECK,   false",
    "STREAM,           true,  true,  HOLD_UNTIL_INFERENCE_PROBE, false",
    "INFERENCE_STATUS, true,  true,  HOLD_UNTIL_INFERENCE_PROBE, false",
    "KV_HANDOFF,       false, true,  HOLD_UNTIL_INFERENCE_PROBE, false",
    "REJECTED,         false, false, COUNTS_AS_ALIVE,            false",
    "RESPONSE_LIMIT,   false, false, NONE,                       false",
  })
  void eachClass_hasTheSpecsRule(FailureClass cls, boolean retryable, boolean quarantines, BreakerRemedy remedy,
      boolean unreachable) {
    FailurePolicy.Rule rule = FailurePolicy.of(cls);

    assertThat(rule.provesUnreachable()).as("proves unreachable").isEqualTo(unreachable);
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

  @ParameterizedTest(name = "{0} in the {1}")
  @CsvSource({
    "408, HEADERS,      OVERLOAD,         engine_overloaded,  504, true",
    "408, STREAM_EVENT, OVERLOAD,         engine_overloaded,  408, true",
    "429, HEADERS,      OVERLOAD,         engine_overloaded,  502, true",
    "503, HEADERS,      OVERLOAD,         engine_overloaded,  502, true",
    "503, STREAM_EVENT, OVERLOAD,         engine_overloaded,  503, true",
    "401, HEADERS,      INFERENCE_STATUS, engine_credentials, 502, false",
    "403, STREAM_EVENT, INFERENCE_STATUS, engine_credentials, 403, false",
    "504, HEADERS,      TIMEOUT,          engine_timeout,     504, true",
    "500, HEADERS,      INFERENCE_STATUS, engine_error,       502, true",
    "500, STREAM_EVENT, INFERENCE_STATUS, engine_error,       500, true",
    "404, HEADERS,      REJECTED,         engine_rejected,    404, true",
    "204, HEADERS,      INFERENCE_STATUS, invalid_response,   502, false",
    "42,  STREAM_EVENT, INFERENCE_STATUS, engine_error,       500, true",
  })
  void anEnginesStatus_meansOneThingWhereverItArrives(int status, FailureOrigin origin, FailureClass cls, String reason,
      int clientStatus, boolean mayDiffer) {
    FailurePolicy.EngineStatus rule = FailurePolicy.engineStatus(status, origin);

    assertThat(rule.failureClass()).isEqualTo(cls);
    assertThat(rule.reason()).isEqualTo(reason);
    assertThat(rule.clientStatus()).isEqualTo(clientStatus);
    assertThat(rule.mayDifferNextTime()).isEqualTo(mayDiffer);
  }

  @Test
  void onlyHeadersAndStreamsCarryAnEnginesStatus() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> FailurePolicy.engineStatus(500, FailureOrigin.TIMEOUT))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aConcurrentDecodeWaitedOnItsProducer_onlyWhenAcceptedThenTimedOutWithoutAToken() {
    assertThat(FailurePolicy.waitedOnProducer(FailureOrigin.TIMEOUT, 504, true, 0)).isTrue();
    assertThat(FailurePolicy.waitedOnProducer(FailureOrigin.TIMEOUT, 504, false, 0)).isFalse();
    assertThat(FailurePolicy.waitedOnProducer(FailureOrigin.TIMEOUT, 504, true, 1)).isFalse();
    assertThat(FailurePolicy.waitedOnProducer(FailureOrigin.HEADERS, 504, true, 0)).isFalse();
    assertThat(FailurePolicy.waitedOnProducer(FailureOrigin.RESPONSE, 502, true, 0)).isFalse();
  }
}
