package narwhal.engines.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import org.junit.jupiter.api.Test;

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
        EngineSpec.of("p1", "http://10.0.0.1:8100", EngineRole.PREFILL),
        EngineSpec.of("d1", "http://10.0.0.3:8200", EngineRole.DECODE))), 5));
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
}
