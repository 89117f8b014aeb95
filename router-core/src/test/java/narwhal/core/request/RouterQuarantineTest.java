package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.spi.TransportFailure;
import narwhal.testing.OpenAiWire;
import narwhal.testing.TestDialect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** recovery.failure_quarantine_s: a failed engine sits out later placements, for that long only. */
class RouterQuarantineTest {

  private static FleetConfig quarantine(FleetConfig c, double seconds) {
    return c.withRecovery(c.recovery().withFailureQuarantineS(seconds));
  }

  @Test
  void quarantine_failedProducer_isSkippedByLaterRequestsForExactlyTheQuarantine() {
    RouterFixture r = new RouterFixture(quarantine(RouterFixture.twoByTwo(), 5));
    r.submitCompletion();
    r.call(0).respond(500, "");
    assertThat(r.iidOf(r.call(0))).isEqualTo("p1");

    r.submitCompletion().handle().cancel();
    r.loop.advanceMillis(4999);
    r.submitCompletion().handle().cancel();
    r.loop.advanceMillis(1);
    r.submitCompletion();

    assertThat(r.transport.calls()).extracting(r::iidOf).containsExactly("p1", "p2", "p2", "p1");
  }

  @Test
  void quarantine_failedConsumer_isSkippedByTheNextRequest() {
    RouterFixture r = new RouterFixture(quarantine(RouterFixture.twoByTwo(), 5));
    r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).respond(500, "");
    assertThat(r.iidOf(r.call(1))).isEqualTo("d1");

    r.submitCompletion();
    r.prefillOk(r.call(2));

    assertThat(r.iidOf(r.call(3))).isEqualTo("d2");
  }

  @Test
  void quarantine_onlyEngineOfItsRole_staysInPlacement() {
    RouterFixture r = new RouterFixture(quarantine(FleetConfig.of("m", List.of(
        TestDialect.engine("p1", "http://10.0.0.1:8100", EngineRole.PREFILL),
        TestDialect.engine("d1", "http://10.0.0.3:8200", EngineRole.DECODE))), 5));
    r.submitCompletion();
    r.call(0).respond(500, "");

    r.submitCompletion();

    assertThat(r.transport.calls()).extracting(r::iidOf).containsExactly("p1", "p1");
  }

  @Test
  void quarantine_off_failedEngineIsPlacedAgainAtOnce() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    r.submitCompletion();
    r.call(0).respond(500, "");

    r.submitCompletion();

    assertThat(r.transport.calls()).extracting(r::iidOf).containsExactly("p1", "p1");
  }

  @Test
  void engineRejection400_isNotAnEngineFault_theEngineStaysInPlacement() {
    RouterFixture r = new RouterFixture(quarantine(RouterFixture.twoByTwo(), 5));
    RouterFixture.Client first = r.submitCompletion();
    r.call(0).respond(400, OpenAiWire.errorBody(400, "This model's maximum context length is 4096 tokens"));
    assertThat(first.sink().log).containsExactly("error:400:prefill");

    r.submitCompletion();

    assertThat(r.transport.calls()).extracting(r::iidOf).containsExactly("p1", "p1");
    assertThat(r.fleet.get("p1").isQuarantined(r.loop.nanoTime())).isFalse();
  }

  @Test
  void decodeRejection400_leavesTheConsumerInPlacement() {
    RouterFixture r = new RouterFixture(quarantine(RouterFixture.twoByTwo(), 5));
    r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).respond(400, OpenAiWire.errorBody(400, "max_tokens is too large"));
    assertThat(r.iidOf(r.call(1))).isEqualTo("d1");

    r.submitCompletion();
    r.prefillOk(r.call(2));

    assertThat(r.transport.calls()).extracting(r::iidOf).containsExactly("p1", "d1", "p1", "d1");
  }

  @Test
  void inStreamErrorWithA4xxCode_beforeOutput_doesNotQuarantine() {
    RouterFixture r = new RouterFixture(quarantine(RouterFixture.twoByTwo(), 5));
    r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).sse().event("{\"error\":{\"message\":\"bad logit_bias\",\"type\":\"BadRequestError\","
        + "\"param\":null,\"code\":400}}").event("[DONE]").end();

    r.submitCompletion();
    r.prefillOk(r.call(2));

    assertThat(r.iidOf(r.call(3))).isEqualTo("d1");
  }

  @ParameterizedTest(name = "HTTP {0}")
  @ValueSource(ints = {408, 429, 500, 503, 504})
  void engineFaultStatuses_quarantineTheEngine(int status) {
    RouterFixture r = new RouterFixture(quarantine(RouterFixture.twoByTwo(), 5));
    r.submitCompletion();
    r.call(0).respond(status, OpenAiWire.errorBody(status, "engine trouble"));

    r.submitCompletion();

    assertThat(r.transport.calls()).extracting(r::iidOf).containsExactly("p1", "p2");
  }

  @Test
  void transportFault_quarantinesTheEngine() {
    RouterFixture r = new RouterFixture(quarantine(RouterFixture.twoByTwo(), 5));
    r.submitCompletion();
    r.call(0).fail(TransportFailure.Kind.CONNECT_FAILED);

    r.submitCompletion();

    assertThat(r.transport.calls()).extracting(r::iidOf).containsExactly("p1", "p2");
  }

  @Test
  void firstTokenTimeout_quarantinesTheConsumer() {
    RouterFixture r = new RouterFixture(quarantine(RouterFixture.twoByTwo(), 5));
    r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).sse();
    r.loop.advanceMillis(2500);

    r.submitCompletion();
    r.prefillOk(r.call(2));

    assertThat(r.transport.calls()).extracting(r::iidOf).containsExactly("p1", "d1", "p1", "d2");
  }
}
